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
import { spawn } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";

import { startFakeDns } from "../../support/fake_dns/fake_dns.mjs";
import { startCanary, startHttpFixtures } from "../../support/http_fixtures/http_fixtures.mjs";
import { enterNetnsOrExit, PUBLIC_V4 } from "../../support/netns/netns.mjs";
import { createPiEnv, REPO_ROOT } from "../../support/pi_harness.mjs";

await enterNetnsOrExit({ addresses: [PUBLIC_V4], label: "e2e_web_fetch", privateResolvConf: true });

const BUILD = process.env.PI_FUSION_BUILD_DIR ?? path.join(REPO_ROOT, "build", "dev");
const PI_FUSION = path.join(BUILD, "bin", "pi-fusion");
const CHILD_ADDON = path.join(BUILD, "lib", "pi_fusion_child.node");
const RUN_ID = `research-${"0123456789abcdef".repeat(2)}`;

const http = await startHttpFixtures({ host: PUBLIC_V4, port: 80 });
const canary = await startCanary({ host: "127.0.0.1", port: 80 });
const dns = await startFakeDns({ port: 53, zones: { "docs.test": { A: [PUBLIC_V4] } } });
after(() => Promise.all([http.close(), canary.close(), dns.close()]));

const DECLARED = ["http://docs.test/utf8", `http://${PUBLIC_V4}/to?url=http://127.0.0.1/text`];

/** Writes the run's source policy as the parent does; returns the child's private variables. */
function sourcePolicyEnv(dir, urls = DECLARED) {
  const bytes = JSON.stringify({ declared_urls: urls, run_id: RUN_ID,
    schema_version: "pi-background-tasks.fusion-source-policy.v1" });
  const file = path.join(dir, "source-policy.private.json");
  fs.writeFileSync(file, bytes);
  const sha = `sha256:${crypto.createHash("sha256").update(bytes).digest("hex")}`;
  return { PI_FUSION_SOURCE_POLICY: file, PI_FUSION_SOURCE_POLICY_SHA256: sha };
}

/** `pi-fusion child-run` of one research candidate; resolves {code, out, stderr}. */
function childRun(env, extraEnv) {
  const dir = fs.mkdtempSync(path.join(env.tmp, "child-run-"));
  const promptFile = path.join(dir, "prompt.txt");
  fs.writeFileSync(promptFile, "Research the declared sources.");
  const args = ["child-run", "--provider", "scripted", "--model", "scripted-a", "--prompt-file",
    promptFile, "--capability", "research", "--role", "candidate", "--artifact-dir", dir,
    "--cwd", env.cwd, "--child-addon", CHILD_ADDON];
  return new Promise((resolve, reject) => {
    const child = spawn(PI_FUSION, args, { env: env.env(extraEnv(dir)), detached: true,
      stdio: ["ignore", "pipe", "pipe"] });
    env.track(child);
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    child.on("error", reject);
    child.on("close", (code) => {
      const stdout = Buffer.concat(out).toString("utf8");
      const stderr = Buffer.concat(err).toString("utf8");
      try {
        resolve({ code, out: JSON.parse(stdout), stderr });
      } catch (e) {
        reject(new Error(`child-run printed no JSON (code ${code}): ${e.message}\n${stdout}\n${stderr}`));
      }
    });
  });
}

const fetchCall = (url) => ({ name: "fusion_web_fetch", arguments: { url, extract: "text" } });

async function withEnv(script, body) {
  const env = await createPiEnv({ script, timeoutMs: 120000 });
  try {
    await body(env);
  } finally {
    await env.cleanup();
  }
}

test("a research candidate fetches a declared page and quotes it", () =>
  withEnv({
    rules: [
      { match: { last_role: "user" }, responses: [{ tool_calls: [fetchCall("HTTP://Docs.TEST/utf8#top")] }] },
      { match: { last_role: "tool" }, responses: [{ text: "Quoted: {{tool_results}}" }] },
    ],
  }, async (env) => {
    const r = await childRun(env, (dir) => sourcePolicyEnv(dir));
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
    const r = await childRun(env, (dir) => sourcePolicyEnv(dir));
    assert.equal(r.code, 0, r.stderr);
    const answer = r.out.answer;
    assert.match(answer, /source_not_declared: only the URLs declared/);
    assert.match(answer, /redirect_blocked: redirect target .*127\.0\.0\.1 is loopback/);
    // Only the declared redirecting page was requested; loopback was never reached.
    assert.deepEqual(http.requests.slice(before).map((q) => q.path), ["/to?url=http://127.0.0.1/text"]);
    assert.equal(canary.connections(), 0);
  }));

test("a candidate whose source policy was altered fails to load", () =>
  withEnv({ default: { text: "never" } }, async (env) => {
    const r = await childRun(env, (dir) => {
      const vars = sourcePolicyEnv(dir);
      fs.appendFileSync(vars.PI_FUSION_SOURCE_POLICY, " ");
      return vars;
    });
    assert.notEqual(r.code, 0);
    assert.match(JSON.stringify(r.out) + r.stderr, /not the one the parent wrote/);
  }));
