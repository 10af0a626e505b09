/**
 * @file A fusion_web_fetch call that fails Pi's own argument check never runs the tool, so the
 * source policy never sees its URL. That raw, undeclared URL must still be written nowhere: not
 * in the run directory (the candidates' events, stderr and audit logs, which the expanded view
 * reads), not in Pi's session. Its journal record keeps the URL's hash only. No network is
 * needed: the call is stopped before any fetch.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { runDirs, sha256 } from "../../support/fusion_runs.mjs";
import {
  auditLog, candidateBatches, candidateRules, cleanTaskAgentRules, withFixtureEnv,
} from "../investigate/investigate_support.mjs";

const RAW = "http://undeclared.test/private?token=RAW-URL-TOKEN-6620";
const ARGS = {
  objective: "Say what the documentation page says",
  background: ["The page is the project's documentation"],
  deliverable: "One sentence quoting the page",
  sources: [{ url: "http://docs.test/utf8", purpose: "the documentation" }],
};

/** Every file under `dir` whose bytes hold `needle`, but the scripted model's own request log. */
function filesHolding(dir, needle) {
  const found = [];
  for (const rel of fs.readdirSync(dir, { recursive: true })) {
    const abs = path.join(dir, rel);
    if (path.basename(abs) === "model-requests.jsonl" || !fs.lstatSync(abs).isFile()) continue;
    if (fs.readFileSync(abs).includes(needle)) found.push(rel);
  }
  return found;
}

test("research: a fetch whose arguments fail Pi's check leaves its raw URL nowhere, only its hash in the journal", () => {
  // extract: 42 fails the tool's schema, so Pi answers "Validation failed" without running it.
  const calls = [{ name: "fusion_web_fetch", arguments: { url: RAW, extract: 42 } }];
  const rules = cleanTaskAgentRules("research", ARGS, candidateRules([{ tool_calls: calls }], "Nothing fetched."));
  return withFixtureEnv({ script: { rules } }, async (env) => {
    const r = await env.print("please research");
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(MERGED_TEXT), r.stdout);
    // The candidates did get Pi's refusal, which quotes the arguments: the URL was there to leak.
    const batches = candidateBatches(env);
    assert.equal(batches.length, 3);
    for (const [result] of batches) assert.match(result.text, /Validation failed for tool "fusion_web_fetch"[^]*RAW-URL-TOKEN-6620/);
    assert.deepEqual(filesHolding(env.root, "RAW-URL-TOKEN-6620"), []);
    const [dir] = runDirs(env);
    for (const slot of [1, 2, 3]) {
      const [record] = auditLog(dir, slot).records;
      assert.equal(record.status, "error");
      assert.equal(record.rejected_url_sha256, sha256(RAW));
      assert.ok(fs.existsSync(path.join(dir, `candidate-${slot}.attempt-1.events.jsonl`)));
    }
    assert.equal(r.stdout.includes("RAW-URL-TOKEN-6620") || r.stderr.includes("RAW-URL-TOKEN-6620"), false);
  });
});
