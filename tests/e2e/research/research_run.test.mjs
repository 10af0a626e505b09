/**
 * @file fusion_research end to end inside the real pinned Pi, in a private network namespace
 * (tests/support/netns): the agent launches the run, three real research candidates fetch the
 * declared pages of a fixture site through fusion_web_fetch (the real `pi-fusion fetch`, names
 * answered by a fake DNS server through the namespace's own resolv.conf) and read the project,
 * the blind evaluator and the merger answer, and bg_result returns the verified answer. Checks
 * the source policy artifact, the tools each child had, what reached the site (and what did not),
 * and the fetch provenance sealed in every candidate's audit log.
 * Declared sources no candidate could fetch are warnings in every view: the result, the notice,
 * bg_result, json mode, print mode's stderr, the TUI (tmux, inside the namespace too, whose
 * expanded run lists each candidate's fetches) and `pi-fusion runs`.
 * Run directly (`node research_run.test.mjs`): the file re-executes itself in the namespace, or
 * exits 77 (skipped) saying why it cannot.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";

import { startFakeDns } from "../../support/fake_dns/fake_dns.mjs";
import { agentRules, EVALUATION, fusionRules, MERGED_TEXT, STAGE } from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, manifestOf, piFusion, runDirs, sha256 } from "../../support/fusion_runs.mjs";
import { startCanary, startHttpFixtures, UTF8_TEXT } from "../../support/http_fixtures/http_fixtures.mjs";
import { enterNetnsOrExit, PUBLIC_V4 } from "../../support/netns/netns.mjs";
import { lastToolResult, offeredTools, regexLiteral } from "../../support/pi_harness.mjs";
import { candidateSection, withTmuxPi } from "../../support/tmux_pi.mjs";
import {
  assertAuditLogSchemas, assertCandidatesOffered, auditLog, candidateBatches, candidateRequests, candidateRules,
  cleanTaskAgentRules, INSPECT_TOOLS, RUN_TIMEOUT_MS, withFixtureEnv,
} from "../investigate/investigate_support.mjs";

const CANARY_HOSTS = ["127.0.0.1", "169.254.169.254", "168.63.129.16"];
await enterNetnsOrExit({
  addresses: [PUBLIC_V4, ...CANARY_HOSTS.slice(1)], label: "e2e_research", privateResolvConf: true,
});

const http = await startHttpFixtures({ host: PUBLIC_V4, port: 80 });
const canaries = await Promise.all(CANARY_HOSTS.map((host) => startCanary({ host, port: 80 })));
const canaryConnections = () => canaries.reduce((sum, c) => sum + c.connections(), 0);
const dns = await startFakeDns({ port: 53, zones: { "docs.test": { A: [PUBLIC_V4] } } });
after(() => Promise.all([http.close(), dns.close(), ...canaries.map((c) => c.close())]));

const PAGE = "http://docs.test/utf8";
const TO_METADATA = "http://docs.test/to?url=http://169.254.169.254/latest/meta-data/";
const UNDECLARED = "http://docs.test/text";
const RESEARCH_TOOLS = [...INSPECT_TOOLS, "fusion_web_fetch"];
const RESEARCH_ARGS = {
  objective: "Say what the documentation page says",
  background: ["The page is the project's documentation"],
  deliverable: "One sentence quoting the page",
  sources: [
    { url: "HTTP://Docs.TEST:80/utf8#intro", purpose: "the documentation" },
    { url: TO_METADATA, purpose: "a page that moved" },
  ],
};
const UNREACHABLE = "http://nowhere.test/page";  // not in the fake DNS: NXDOMAIN
const fetchCall = (url) => ({ name: "fusion_web_fetch", arguments: { url, extract: "text" } });
/** The warning every view gives for a declared source no candidate could fetch. */
const warning = (url, code) => `Warning: the declared source ${url} could not be fetched (${code}); no candidate read it.`;
/** The warning every view adds when no candidate fetched any declared source. */
const NO_SOURCE = "Warning: no declared source was fetched by any candidate; the answer rests on the candidates' own knowledge and the project's files, not on the declared sources.";

test("research: candidates fetch the declared page and quote it; refusals cost no request; provenance is sealed", () => {
  const firstTurn = [{ tool_calls: [fetchCall(PAGE), fetchCall(UNDECLARED), fetchCall(TO_METADATA),
    { name: "read", arguments: { path: "src/app.txt" } }] }];
  const rules = cleanTaskAgentRules("research", RESEARCH_ARGS, candidateRules(firstTurn));
  return withFixtureEnv({ script: { rules } }, async (env) => {
    const r = await env.print("please research");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^FINAL: Fusion research-[0-9a-f]{32} completed \(research\)\./);
    assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);

    const [dir] = runDirs(env);
    const manifest = manifestOf(dir);
    assert.equal(manifest.state, "completed");
    assert.deepEqual(manifest.capabilities, { candidate: "research", evaluator: "reason", merger: "reason" });
    assert.deepEqual(manifest.tool_policy.candidate_tools, RESEARCH_TOOLS);
    assert.deepEqual(manifest.tool_policy.evaluator_tools, []);
    assert.deepEqual(manifest.tool_policy.merger_tools, []);

    // The source policy: the declared canonical URLs, bound to the manifest.
    const policyBytes = fs.readFileSync(path.join(dir, "source-policy.private.json"), "utf8");
    assert.deepEqual(JSON.parse(policyBytes), {
      declared_urls: [PAGE, TO_METADATA], run_id: path.basename(dir),
      schema_version: "pi-background-tasks.fusion-source-policy.v1",
    });
    const ref = manifest.artifacts["source-policy.private.json"];
    assert.equal(ref.sha256, sha256(policyBytes));

    // Candidates had exactly the research tools; they saw the page, and typed refusals.
    assertCandidatesOffered(env, RESEARCH_TOOLS);
    const requests = candidateRequests(env);
    const results = candidateBatches(env);
    assert.equal(results.length, 3);
    for (const batch of results) {
      assert.deepEqual(batch.map((t) => t.name), ["fusion_web_fetch", "fusion_web_fetch", "fusion_web_fetch", "read"]);
      assert.match(batch[0].text, new RegExp(`^Fetched ${PAGE}\\n[^]*<<<untrusted-page [0-9a-f]{16}\\n${UTF8_TEXT}\\n>>>`));
      assert.match(batch[1].text, /^source_not_declared: /);
      assert.match(batch[2].text, /^redirect_blocked: .*169\.254\.169\.254 is link-local/);
      assert.match(batch[3].text, /The answer is FORTY-TWO\./);
    }
    // The evaluator and the merger had no tools.
    for (const q of env.requests().filter((x) => !requests.includes(x) && x.last_user_text.includes("pi-background-tasks.fusion-"))) {
      assert.deepEqual(q.body.tools ?? [], []);
    }

    // The site saw the two declared pages once per candidate, never the undeclared one; no
    // connection reached loopback or the metadata address.
    assert.deepEqual(http.requests.map((q) => q.path).sort(),
      [...Array(3).fill("/to?url=http://169.254.169.254/latest/meta-data/"), ...Array(3).fill("/utf8")]);
    assert.equal(canaryConnections(), 0);

    // Every candidate's sealed audit log carries the fetch provenance and no page content.
    const pageBody = `<html><head></head><body><p>${UTF8_TEXT}</p></body></html>`;
    for (const slot of [1, 2, 3]) {
      const { journal, seal, records } = auditLog(dir, slot);
      assert.equal(seal.status, "complete");
      assert.equal(seal.journal_sha256, sha256(journal));
      assert.equal(seal.record_count, 4);
      const fetches = records.filter((x) => x.tool_name === "fusion_web_fetch");
      const byKind = (pred) => fetches.filter(pred);
      const [ok] = byKind((x) => x.status === "ok");
      assert.deepEqual({ url: ok.url, final_url: ok.final_url, http_status: ok.http_status,
        response_bytes: ok.response_bytes, content_sha256: ok.content_sha256 },
      { url: PAGE, final_url: PAGE, http_status: 200, response_bytes: Buffer.byteLength(pageBody),
        content_sha256: sha256(pageBody) });
      const [refused] = byKind((x) => "rejected_url_sha256" in x);
      assert.equal(refused.rejected_url_sha256, sha256(UNDECLARED));
      assert.ok(!("url" in refused) && !("error_code" in refused));
      const [failed] = byKind((x) => x.error_code === "redirect_blocked");
      assert.deepEqual({ url: failed.url, final_url: failed.final_url, http_status: failed.http_status },
        { url: TO_METADATA, final_url: TO_METADATA, http_status: 302 });
      assert.ok(!journal.includes("Caf") && !journal.includes(UNDECLARED), journal);
      assert.ok(manifest.artifacts[`candidate-${slot}.attempt-1.seal.json`]);
      assertAuditLogSchemas(dir, slot);  // fetched, failed and refused URLs' provenance
    }
  });
});

test("research with policy.evaluator_tools: the evaluator fetches a declared source under its own sealed log; an undeclared URL is refused", () => {
  const V2 = "pi-background-tasks.fusion-evaluation.v2";
  const claim = { claim: "The project states the answer.", verdict: "supported", evidence: ["src/app.txt:1"] };
  const [repair, merger] = fusionRules();
  const stages = [
    repair,
    merger,
    { name: "evaluator-answer", match: { ...STAGE.evaluator, last_role: "tool" }, responses: [{ text: JSON.stringify({ ...EVALUATION, schema_version: V2, checked_claims: [claim] }) }] },
    { name: "evaluator-tools", match: { ...STAGE.evaluator, last_role: "user" }, responses: [{ tool_calls: [fetchCall(PAGE), fetchCall(UNDECLARED)] }] },
    ...candidateRules([{ tool_calls: [{ name: "read", arguments: { path: "src/app.txt" } }] }]),
  ];
  const rules = agentRules({ workflow: "research", args: RESEARCH_ARGS, ask: "please research", failedReply: "noted", stages });
  return withFixtureEnv({ script: { rules } }, async (env) => {
    const route = "scripted/scripted-a";
    env.writeAgentFile("fusion-models.json", JSON.stringify({
      schema_version: "pi-background-tasks.fusion-models.v3", candidates: [route, route, route], evaluator: route, merger: route,
      policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, evaluator_tools: true },
    }));
    const before = http.requests.length;
    const r = await env.print("please research");
    assert.equal(r.code, 0, r.stderr);
    const [dir] = runDirs(env);
    const manifest = manifestOf(dir);
    assert.equal(manifest.state, "completed");
    assert.deepEqual(manifest.tool_policy.evaluator_tools, RESEARCH_TOOLS);
    // The evaluator was offered the research tools; the page reached it, the undeclared URL did not.
    const evaluator = env.requests().filter((q) => q.rule_name === "evaluator-answer");
    assert.equal(evaluator.length, 1);
    assert.deepEqual(offeredTools(evaluator[0]).sort(), [...RESEARCH_TOOLS].sort());
    const [fetched, refused] = evaluator[0].tool_results;
    assert.match(fetched.text, new RegExp(`^Fetched ${PAGE}\\n[^]*${UTF8_TEXT}`));
    assert.match(refused.text, /^source_not_declared: /);
    // Only the evaluator fetched (the candidates read a file): once, the declared page.
    assert.deepEqual(http.requests.slice(before).map((q) => q.path), ["/utf8"]);
    assert.equal(canaryConnections(), 0);
    // Its sealed log carries the provenance, bound in the manifest like a candidate's.
    const journal = artifactText(dir, "evaluation.attempt-1.tool-calls.jsonl");
    const seal = artifactJson(dir, "evaluation.attempt-1.seal.json");
    assert.equal(seal.status, "complete");
    assert.equal(seal.journal_sha256, sha256(journal));
    const records = journal.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.deepEqual(records.map((x) => x.tool_name), ["fusion_web_fetch", "fusion_web_fetch"]);
    const ok = records.find((x) => x.status === "ok");
    assert.deepEqual([ok.url, ok.final_url, ok.http_status], [PAGE, PAGE, 200]);
    const rejected = records.find((x) => "rejected_url_sha256" in x);
    assert.equal(rejected.rejected_url_sha256, sha256(UNDECLARED));
    assert.ok(!journal.includes(UNDECLARED), journal);
    assert.ok(manifest.artifacts["evaluation.attempt-1.seal.json"]);
    // The checked claim reached the result, its evidence checked as a citation.
    const result = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    assert.deepEqual(result.details.checked_claims, [claim]);
    assert.equal(result.details.citations.broken.length, 0);
  });
});

test("research: a declared source no candidate could fetch is a warning in the result, bg_result's text, the notice and json mode", () => {
  const args = { ...RESEARCH_ARGS, sources: [{ url: PAGE, purpose: "the documentation" }, { url: UNREACHABLE, purpose: "a page that is gone" }] };
  const rules = cleanTaskAgentRules("research", args, candidateRules([{ tool_calls: [fetchCall(PAGE), fetchCall(UNREACHABLE)] }]));
  const WARNING = warning(UNREACHABLE, "dns_failure");
  return withFixtureEnv({ script: { rules } }, async (env) => {
    const j = await env.json("please research");
    assert.equal(j.code, 0, j.stderr);
    const [dir] = runDirs(env);
    assert.equal(manifestOf(dir).state, "completed");
    // Every candidate's fetch of it failed (the fetched page is no warning): one row, in the result.
    for (const slot of [1, 2, 3]) {
      const failed = auditLog(dir, slot).records.filter((x) => x.url === UNREACHABLE);
      assert.deepEqual(failed.map((x) => [x.status, x.error_code]), [["error", "dns_failure"]]);
    }
    const result = JSON.parse(fs.readFileSync(path.join(dir, "result.json"), "utf8"));
    assert.deepEqual(result.details.source_failures, [{ url: UNREACHABLE, code: "dns_failure" }]);
    assert.equal(result.details.no_source_fetched, undefined, "one source was fetched: not flagged");

    // The notice that woke the agent says it: the model's request, and json mode's wake entry.
    const notice = env.requests().find((q) => q.rule_name === "wake");
    assert.ok(notice.last_user_text.includes(WARNING), notice.last_user_text);
    const wake = j.events.find((e) => e.type === "entry_appended" && e.entry?.customType === "fusion-task");
    assert.ok(JSON.stringify(wake.entry.content).includes(JSON.stringify(WARNING).slice(1, -1)), JSON.stringify(wake));

    // bg_result: its text says it before the answer, its details carry the row (json mode's events).
    const retrieved = j.events.find((e) => e.type === "tool_execution_end" && e.toolName === "bg_result");
    const text = retrieved.result.content[0].text;
    assert.ok(text.includes(WARNING), text);
    assert.ok(text.indexOf(WARNING) < text.indexOf(MERGED_TEXT));
    assert.doesNotMatch(text, new RegExp(`declared source ${regexLiteral(PAGE)}`));
    assert.ok(!text.includes(NO_SOURCE), text);
    assert.deepEqual(retrieved.result.details.result.source_failures, [{ url: UNREACHABLE, code: "dns_failure" }]);
  });
});

test("research: /fusion-resume after a failed merger keeps the declared sources and the reused candidates' sealed fetches", () => {
  // UNREACHABLE (NXDOMAIN): its failure must survive the reuse.
  const args = { ...RESEARCH_ARGS, sources: [{ url: PAGE, purpose: "the documentation" }, { url: UNREACHABLE, purpose: "a page that is gone" }] };
  const candidates = candidateRules([{ tool_calls: [fetchCall(PAGE), fetchCall(UNREACHABLE)] }]);
  const rules = cleanTaskAgentRules("research", args, candidates);
  const failingMerger = rules.map((rule) => (rule.name === "merger" ? { ...rule, responses: [{ status: 500 }] } : rule));
  return withFixtureEnv({ script: { rules: failingMerger } }, async (env) => {
    await env.print("please research");
    const [oldDir] = runDirs(env);
    assert.equal(manifestOf(oldDir).error.stage, "merge");
    env.server.setScript({ rules });
    const fetchesBefore = http.requests.length;
    const before = env.requests().length;
    const r = await env.print(`/fusion-resume ${path.basename(oldDir)}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${MERGED_TEXT}\n`);
    // Print mode's stderr says the failed source of the answer it printed.
    assert.ok(r.stderr.split("\n").includes(warning(UNREACHABLE, "dns_failure")), r.stderr);
    assert.deepEqual(env.requests().slice(before).map((q) => q.rule_name), ["merger"]);
    assert.equal(http.requests.length, fetchesBefore, "no page fetched again");
    const newDir = runDirs(env).find((d) => d !== oldDir);
    const policy = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "source-policy.private.json"), "utf8"));
    assert.deepEqual(policy(newDir).declared_urls, policy(oldDir).declared_urls);
    assert.equal(policy(newDir).run_id, path.basename(newDir));
    const result = JSON.parse(fs.readFileSync(path.join(newDir, "result.json"), "utf8"));
    assert.equal(result.details.resumed_from, path.basename(oldDir));
    // Counted again from the copied, re-verified audit logs.
    assert.deepEqual(result.details.source_failures, [{ url: UNREACHABLE, code: "dns_failure" }]);
  });
});

test("research: when every declared source fails, each is a warning and the run is flagged as having fetched none, in the result, the notice, bg_result, bg_status and pi-fusion runs, never a plain completed", () => {
  const REFUSED = "http://docs.test:81/page";  // nothing listens on port 81: the connection is refused
  const args = { ...RESEARCH_ARGS, sources: [{ url: UNREACHABLE, purpose: "a page that is gone" }, { url: REFUSED, purpose: "a server that is down" }] };
  const rules = cleanTaskAgentRules("research", args, candidateRules([{ tool_calls: [fetchCall(UNREACHABLE), fetchCall(REFUSED)] }]));
  // Woken, the agent reads the list of runs too: bg_status must not call the run a plain completed.
  rules.find((r) => r.name === "wake").responses = [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "research-" } }, { name: "bg_status", arguments: {} }] }];
  const ROWS = [{ url: REFUSED, code: "network_error" }, { url: UNREACHABLE, code: "dns_failure" }];  // by URL
  const WARNINGS = [...ROWS.map((x) => warning(x.url, x.code)), NO_SOURCE];
  return withFixtureEnv({ script: { rules } }, async (env) => {
    const served = http.requests.length;
    const r = await env.print("please research");
    assert.equal(r.code, 0, r.stderr);
    const [dir] = runDirs(env);
    const id = path.basename(dir);
    assert.equal(manifestOf(dir).state, "completed");
    assert.equal(http.requests.length, served, "no page was served");
    for (const slot of [1, 2, 3]) {
      const fetches = auditLog(dir, slot).records.filter((x) => x.tool_name === "fusion_web_fetch");
      assert.deepEqual(fetches.map((x) => [x.url, x.status, x.error_code]).sort(),
        [[REFUSED, "error", "network_error"], [UNREACHABLE, "error", "dns_failure"]]);
    }
    // One row per source in the result.
    const resultPath = path.join(dir, "result.json");
    const resultBytes = fs.readFileSync(resultPath, "utf8");
    assert.deepEqual(JSON.parse(resultBytes).details.source_failures, ROWS);
    assert.equal(JSON.parse(resultBytes).details.no_source_fetched, true);

    // The notice that woke the agent and bg_result's text say each one on a line of its own,
    // bg_result before the answer.
    const notice = env.requests().find((q) => q.rule_name === "wake");
    const retrieved = lastToolResult(env.requests(), "bg_result");
    for (const [name, text] of [["notice", notice.last_user_text], ["bg_result", retrieved.text]]) {
      for (const line of WARNINGS) assert.ok(text.split("\n").includes(line), `${name}: ${text}`);
    }
    assert.ok(WARNINGS.every((line) => retrieved.text.indexOf(line) < retrieved.text.indexOf(MERGED_TEXT)), retrieved.text);
    const statusList = lastToolResult(env.requests(), "bg_status");
    assert.match(statusList.text, new RegExp(`^${id}  completed  fusion research  \\(no declared source fetched\\)$`, "m"));

    // pi-fusion runs: the state says it, a line per source under the table, the rows in --json.
    const table = piFusion(env.cwd, "runs");
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, new RegExp(`^${id} +research +completed, no declared source fetched +\\d+s `, "m"));
    const lines = table.stdout.split("\n");
    assert.deepEqual(lines.filter((l) => l.startsWith(`${id}: `)), WARNINGS.map((line) => `${id}: ${line}`));
    const listed = piFusion(env.cwd, "runs", "--json");
    assert.equal(listed.code, 0, listed.stderr);
    const [row] = JSON.parse(listed.stdout);
    assert.equal(row.state, "completed");
    assert.deepEqual(row.source_failures, ROWS);
    assert.equal(row.no_source_fetched, true);

    // Read only from a result that verifies: a row planted in result.json is not believed.
    const planted = JSON.parse(resultBytes);
    planted.details.source_failures.push({ url: "http://planted.test/", code: "dns_failure" });
    fs.writeFileSync(resultPath, JSON.stringify(planted));
    assert.equal(JSON.parse(piFusion(env.cwd, "runs", "--json").stdout)[0].source_failures, null);
    assert.doesNotMatch(piFusion(env.cwd, "runs").stdout, /declared source/);

    // A planted run whose hashes agree, with a line break in a failed source's URL: the warning
    // stays one line, and no line of its own appears to speak of another run.
    const forged = resultBytes.replace(`"url":"${UNREACHABLE}"`, `"url":"${UNREACHABLE}\\nreason-forged: Warning: forged"`);
    assert.notEqual(forged, resultBytes);
    fs.writeFileSync(resultPath, forged);
    const manifestPath = path.join(dir, "manifest.json");
    const manifestBytes = fs.readFileSync(manifestPath, "utf8");
    const manifest = JSON.parse(manifestBytes);
    manifest.artifacts["result.json"] = { ...manifest.artifacts["result.json"], sha256: sha256(forged), byte_length: Buffer.byteLength(forged) };
    fs.writeFileSync(manifestPath, JSON.stringify(manifest));
    const shown = piFusion(env.cwd, "runs");
    assert.match(shown.stdout, new RegExp(`^${id}: .*${regexLiteral(UNREACHABLE)}␊reason-forged: Warning: forged`, "m"), shown.stdout);
    assert.doesNotMatch(shown.stdout, /^reason-forged/m, shown.stdout);
    fs.writeFileSync(manifestPath, manifestBytes);
    fs.writeFileSync(resultPath, resultBytes);
  });
});

test("research in the TUI: the failed declared source in the status and under it; expanded, each candidate's fetches with URL and size or reason", () => {
  const candidates = candidateRules([{ tool_calls: [fetchCall(PAGE), fetchCall(UNDECLARED), fetchCall(TO_METADATA)] }]);
  const rules = cleanTaskAgentRules("research", RESEARCH_ARGS, candidates, "FINAL: the fetches are listed");
  const WARNING = warning(TO_METADATA, "redirect_blocked");
  // tmux runs inside this file's network namespace, as Pi, its children and the fetcher do.
  return withFixtureEnv({ script: { rules } }, (env) => withTmuxPi(env, { width: 220, height: 200 }, async (pi) => {
    await pi.waitFor((s) => s.includes(env.cwd), 30000, "the TUI's footer");
    await pi.submit("please research");
    const collapsed = await pi.waitFor((s) => s.includes("FINAL: the fetches are listed"), RUN_TIMEOUT_MS, "the final answer");
    const [dir] = runDirs(env);
    const id = path.basename(dir);
    assert.equal(manifestOf(dir).state, "completed");
    // bg_result's block (the wake message above it says the same): not a plain "completed", the
    // warning under its status, before the answer.
    const block = collapsed.slice(collapsed.lastIndexOf("bg_result research-"));
    assert.match(block, new RegExp(`^ *✓ completed \\(${id}\\) · 1 declared source failed *$`, "m"));
    const warned = block.search(new RegExp(`^ *${regexLiteral(WARNING)} *$`, "m"));
    assert.ok(warned > 0 && warned < block.indexOf("Why the sky is blue"), block);
    assert.doesNotMatch(collapsed, /Tool calls:/, "collapsed: no list");

    pi.keys("C-o");
    const expanded = await pi.waitFor(/Tool calls: 3 tool calls, 1 refused, 1 failed/, 15000, "the expanded tool calls");
    for (const slot of [1, 2, 3]) {
      const own = candidateSection(expanded, slot);
      const [fetched] = auditLog(dir, slot).records.filter((x) => x.status === "ok");
      // Journal order is the order the calls finished: each line is looked for on its own.
      assert.match(own, /^\s*Tool calls: 3 tool calls, 1 refused, 1 failed\s*$/m);
      assert.match(own, new RegExp(`^\\s+✓ fusion_web_fetch ${regexLiteral(PAGE)} · ${fetched.result_bytes.toLocaleString("en-US")} bytes\\s*$`, "m"));
      // An undeclared URL is never written anywhere, so its row cannot name it.
      assert.match(own, /^\s+✗ fusion_web_fetch \(arguments not shown\) · refused: source_not_declared\s*$/m);
      assert.match(own, new RegExp(`^\\s+✗ fusion_web_fetch ${regexLiteral(TO_METADATA)} · failed: redirect_blocked\\s*$`, "m"));
    }
    assert.ok(!expanded.includes(UNDECLARED), "the undeclared URL is on screen");
  }));
});

test("research in the TUI: a fetch in flight counts as a tool call in progress on the status line", () => {
  const GATE = "http://docs.test/gate";  // answered only once the test releases it
  const args = { ...RESEARCH_ARGS, sources: [{ url: GATE, purpose: "a slow page" }] };
  const rules = cleanTaskAgentRules("research", args, candidateRules([{ tool_calls: [fetchCall(GATE)] }]),
    "FINAL: the slow page was read");
  return withFixtureEnv({ script: { rules } }, (env) => withTmuxPi(env, { width: 240, height: 60 }, async (pi) => {
    try {
      await pi.waitFor((s) => s.includes(env.cwd), 30000, "the TUI's footer");
      await pi.submit("please research");
      // The fetches wait on the gate: no journal line exists yet, and still each is a call.
      const inFlight = /candidate [123] \d+s ago \(1 tool call, 1 running\)/;
      await pi.waitFor(inFlight, RUN_TIMEOUT_MS, "a fetch in flight on the status line");
    } finally {
      http.releaseGate();
    }
    await pi.waitFor((s) => s.includes("FINAL: the slow page was read"), RUN_TIMEOUT_MS, "the final answer");
    assert.equal(manifestOf(runDirs(env)[0]).state, "completed");
  }));
});
