/**
 * @file End to end: fusion_web_fetch in a real research candidate. `pi-fusion child-run
 * --capability research --role candidate` runs the REAL pinned Pi with the child library, which
 * registers the tool from the run's source policy; the scripted model (127.0.0.1) calls it; each
 * call starts the real `pi-fusion fetch`. Everything runs in a private network namespace
 * (tests/support/netns) where the page server has a public address and a fake DNS server on
 * 127.0.0.1:53 answers the fetcher through the namespace's own resolv.conf. Run directly
 * (`node web_fetch_child.test.mjs`), not under `node --test`: the file re-executes itself in the
 * namespace, or exits 77 (skipped) saying why it cannot.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";

import { startFakeDns } from "../../support/fake_dns/fake_dns.mjs";
import { startCanary, startHttpFixtures } from "../../support/http_fixtures/http_fixtures.mjs";
import { UTF8_TEXT, WINDOWS_1252_TEXT } from "../../support/http_fixtures/http_fixtures.mjs";
import {
  enterNetnsOrExit, PUBLIC_V4, PUBLIC_V4_SECOND, PUBLIC_V4_UNREACHABLE,
} from "../../support/netns/netns.mjs";
import { childRun } from "../../support/child_run.mjs";
import { sha256 } from "../../support/fusion_runs.mjs";
import { withPiEnv } from "../../support/pi_harness.mjs";

// Blocked destinations exist in the namespace too, each with a canary counting connections.
const CANARY_HOSTS = ["127.0.0.1", "169.254.169.254", "168.63.129.16"];
await enterNetnsOrExit({
  addresses: [PUBLIC_V4, PUBLIC_V4_SECOND, ...CANARY_HOSTS.slice(1)],
  label: "e2e_web_fetch",
  privateResolvConf: true,
});

const RUN_ID = `research-${"0123456789abcdef".repeat(2)}`;

const http = await startHttpFixtures({ host: PUBLIC_V4, port: 80 });
const canaries = await Promise.all(CANARY_HOSTS.map((host) => startCanary({ host, port: 80 })));
const canaryConnections = () => canaries.reduce((sum, c) => sum + c.connections(), 0);
const dns = await startFakeDns({
  port: 53,
  zones: {
    "docs.test": { A: [PUBLIC_V4] },
    "mixed.test": { A: [PUBLIC_V4, "10.0.0.1"] },
    "multi.test": { A: [PUBLIC_V4_UNREACHABLE, PUBLIC_V4_SECOND, PUBLIC_V4] },
  },
});
after(() => Promise.all([http.close(), dns.close(), ...canaries.map((c) => c.close())]));

const DECLARED = ["http://docs.test/utf8", `http://${PUBLIC_V4}/to?url=http://127.0.0.1/text`];

/** Writes the run's source policy as the parent does; returns the child's private variables. */
function sourcePolicyEnv(dir, urls = DECLARED) {
  const bytes = JSON.stringify({ declared_urls: urls, run_id: RUN_ID,
    schema_version: "pi-background-tasks.fusion-source-policy.v1" });
  const file = path.join(dir, "source-policy.private.json");
  fs.writeFileSync(file, bytes);
  return { PI_FUSION_SOURCE_POLICY: file, PI_FUSION_SOURCE_POLICY_SHA256: sha256(bytes) };
}

/**
 * `pi-fusion child-run` of one research candidate; `extraEnv(dir)` gives its private variables.
 * No time limit of its own: one case waits out the fetcher's 90 s deadline.
 */
function researchChild(env, extraEnv) {
  return childRun(env, { prompt: "Research the declared sources.", capability: "research", extraEnv, timeoutMs: null });
}

const fetchCall = (url) => ({ name: "fusion_web_fetch", arguments: { url, extract: "text" } });

function withEnv(script, body) {
  return withPiEnv({ script, timeoutMs: 120000 }, body);
}

test("a research candidate fetches a declared page and quotes it", () =>
  withEnv({
    rules: [
      { match: { last_role: "user" }, responses: [{ tool_calls: [fetchCall("HTTP://Docs.TEST/utf8#top")] }] },
      { match: { last_role: "tool" }, responses: [{ text: "Quoted: {{tool_results}}" }] },
    ],
  }, async (env) => {
    const r = await researchChild(env, (dir) => sourcePolicyEnv(dir));
    assert.equal(r.code, 0, r.stderr);
    const answer = r.out.answer;
    assert.match(answer, /^Quoted: Fetched http:\/\/docs\.test\/utf8\n/);
    assert.match(answer, /<<<untrusted-page [0-9a-f]{16}\n.*Café 日本語.*\n>>>untrusted-page /s);
    assert.deepEqual(http.requests.map((q) => q.path), ["/utf8"]);
    assert.equal(http.requests[0].host, "docs.test");
  }));

test("an undeclared URL is refused without a request; a blocked redirect is refused", () =>
  withEnv({
    rules: [
      { match: { last_role: "user" }, responses: [{ tool_calls: [
        fetchCall(`http://${PUBLIC_V4}/text`), fetchCall(DECLARED[1])] }] },
      { match: { last_role: "tool" }, responses: [{ text: "Tools said: {{tool_results}}" }] },
    ],
  }, async (env) => {
    const before = http.requests.length;
    const r = await researchChild(env, (dir) => sourcePolicyEnv(dir));
    assert.equal(r.code, 0, r.stderr);
    const answer = r.out.answer;
    assert.match(answer, /source_not_declared: only the URLs declared/);
    assert.match(answer, /redirect_blocked: redirect target .*127\.0\.0\.1 is loopback/);
    // Only the declared redirecting page was requested; loopback was never reached.
    assert.deepEqual(http.requests.slice(before).map((q) => q.path), ["/to?url=http://127.0.0.1/text"]);
    assert.equal(canaryConnections(), 0);
  }));

test("a candidate whose source policy was altered fails to load", () =>
  withEnv({ default: { text: "never" } }, async (env) => {
    const r = await researchChild(env, (dir) => {
      const vars = sourcePolicyEnv(dir);
      fs.appendFileSync(vars.PI_FUSION_SOURCE_POLICY, " ");
      return vars;
    });
    assert.notEqual(r.code, 0);
    assert.match(JSON.stringify(r.out) + r.stderr, /not the one the parent wrote/);
  }));

/** Each tool result of the final request, by the URL the model asked for (same order). */
function resultsByUrl(env, urls) {
  const last = env.requests().at(-1);
  const texts = last.tool_results.map((t) => t.text ?? String(t));
  assert.equal(texts.length, urls.length, JSON.stringify(texts).slice(0, 500));
  return Object.fromEntries(urls.map((u, i) => [u, texts[i]]));
}

test("blocked redirects, mixed and multi-answer names, caps, content types and charsets", () => {
  const to = (target) => `http://${PUBLIC_V4}/to?url=${encodeURIComponent(target)}`;
  const urls = [
    to("http://169.254.169.254/latest/meta-data/"), to("http://168.63.129.16/machine"),
    "http://mixed.test/text", "http://multi.test/text", `http://${PUBLIC_V4}/encoded/gzip/over`,
    `http://${PUBLIC_V4}/bomb`, `http://${PUBLIC_V4}/pdf`, `http://${PUBLIC_V4}/json`,
    `http://${PUBLIC_V4}/cp1252`, `http://${PUBLIC_V4}/utf8`,
  ];
  return withEnv({
    rules: [
      { match: { last_role: "user" }, responses: [{ tool_calls: urls.map(fetchCall) }] },
      { match: { last_role: "tool" }, responses: [{ text: "done" }] },
    ],
  }, async (env) => {
    const r = await researchChild(env, (dir) => sourcePolicyEnv(dir, urls));
    assert.equal(r.code, 0, r.stderr);
    const got = resultsByUrl(env, urls);
    assert.match(got[urls[0]], /^redirect_blocked: .*169\.254\.169\.254 is link-local/);
    assert.match(got[urls[1]], /^redirect_blocked: .*168\.63\.129\.16 is the Azure platform/);
    assert.match(got[urls[2]], /^blocked_address: .*10\.0\.0\.1 is private/);
    assert.match(got[urls[3]], /<<<untrusted-page [0-9a-f]{16}\nhello from the fixture\n>>>/);
    assert.match(got[urls[4]], /^response_too_large: /);
    assert.match(got[urls[5]], /^response_too_large: /);
    assert.match(got[urls[6]], /^unsupported_content_type: .*application\/pdf/);
    assert.match(got[urls[7]], /^unsupported_content_type: .*application\/json/);
    assert.ok(got[urls[8]].includes(`\n${WINDOWS_1252_TEXT}\n`), got[urls[8]]);
    assert.ok(got[urls[9]].includes(`\n${UTF8_TEXT}\n`), got[urls[9]]);
    assert.equal(canaryConnections(), 0);
    assert.equal(http.requests.filter((q) => q.host === "mixed.test").length, 0);
  });
});

test("the 51st fetch of a candidate attempt is refused", () => {
  const page = `http://${PUBLIC_V4}/markdown`;
  const batch = (n) => ({ tool_calls: Array.from({ length: n }, () => fetchCall(page)) });
  return withEnv({
    rules: [
      { match: { last_role: "user" }, responses: [batch(10)] },
      { match: { last_role: "tool" },
        responses: [batch(10), batch(10), batch(10), batch(10), batch(1), { text: "done" }] },
    ],
  }, async (env) => {
    const before = http.requests.filter((q) => q.path === "/markdown").length;
    const r = await researchChild(env, (dir) => sourcePolicyEnv(dir, [page]));
    assert.equal(r.code, 0, r.stderr);
    const last = env.requests().at(-1).tool_results.map((t) => t.text ?? String(t));
    assert.deepEqual(last, ["fetch_limit_exceeded: this attempt has made its 50 fetches; answer "
      + "from what was fetched"]);
    assert.equal(http.requests.filter((q) => q.path === "/markdown").length - before, 50);
  });
});

test("a page that never finishes ends at the 90 s deadline", () => {
  const drip = `http://${PUBLIC_V4}/drip`;
  return withEnv({
    rules: [
      { match: { last_role: "user" }, responses: [{ tool_calls: [fetchCall(drip)] }] },
      { match: { last_role: "tool" }, responses: [{ text: "Tool said: {{tool_results}}" }] },
    ],
  }, async (env) => {
    const started = Date.now();
    const r = await researchChild(env, (dir) => sourcePolicyEnv(dir, [drip]));
    const seconds = (Date.now() - started) / 1000;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.out.answer, /^Tool said: request_timeout: /);
    assert.ok(seconds >= 90, `ended after ${seconds} s`);
    // For the 90 s it waited, the fetch was a call in progress: the child's progress frames said
    // so when it started (written at once, not held back by their one-a-second limit) and when it
    // ended, and not after.
    const childStderr = fs.readFileSync(r.out.artifacts.stderr, "utf8");
    const running = childStderr.split("\n").filter((l) => l.startsWith("@pi-fusion-frame "))
      .map((l) => JSON.parse(l.slice("@pi-fusion-frame ".length)))
      .filter((f) => f.schema_version === "pi-background-tasks.fusion-child-progress.v1")
      .map((f) => f.tools_running);
    const fetching = running.indexOf(1);
    assert.ok(fetching >= 0, `no frame with the fetch running: ${running}`);
    assert.ok(running.slice(fetching).every((n) => n === 1 || n === 0), String(running));
    assert.equal(running.at(-1), 0, String(running));
  });
});
