/**
 * @file policy.evaluator_tools (fusion-models.v3) end to end in the real pinned Pi: the
 * evaluator of an investigate run gets the candidates' read-only tools; the scripted evaluator
 * reads a project file and tries Fusion's run store, then answers
 * pi-background-tasks.fusion-evaluation.v2 with one checked claim citing the file. The run
 * completes; the evaluator's journal and seal are bound and were verified like a candidate's; the
 * wall refused the run-store read; the claim is in result.json, its evidence in the citation
 * check, and the views say so. A tampered evaluator journal fails the run with tool_audit_invalid.
 * A run without the policy keeps its evaluator without tools, asking for fusion-evaluation.v1.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { agentRules, CANDIDATE_TEXT, EVALUATION, fusionRules, MERGED_TEXT, STAGE } from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, manifestOf, runDirs } from "../../support/fusion_runs.mjs";
import { offeredTools } from "../../support/pi_harness.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";
import { INSPECT_TOOLS, INVESTIGATE_ARGS, WRAPPER, withFixtureEnv } from "./investigate_support.mjs";

const V1 = "pi-background-tasks.fusion-evaluation.v1";
const V2 = "pi-background-tasks.fusion-evaluation.v2";
const CLAIM = { claim: "The app gives the answer FORTY-TWO.", verdict: "supported", evidence: ["src/app.txt:1"] };
const EVALUATION_V2 = { ...EVALUATION, schema_version: V2, checked_claims: [CLAIM] };
const JOURNAL = "evaluation.attempt-1.tool-calls.jsonl";
const SEAL = "evaluation.attempt-1.seal.json";
const MERGER_SENTENCE = "claim as fact, and say that an";

/**
 * The stages: the evaluator reads src/app.txt and .pi/fusion, then answers v2; the rest as
 * fusionRules, the first run's candidates answering late enough for the evaluator to start warm.
 */
function stages() {
  // The first run's three candidates only: the tamper run does not wait.
  const late = { delay_ms: 2000, text: CANDIDATE_TEXT };
  const [repair, merger, , candidate] = fusionRules({ candidate: [late, late, late, { text: CANDIDATE_TEXT }] });
  return [
    repair,
    merger,
    { name: "evaluator-answer", match: { ...STAGE.evaluator, last_role: "tool" }, responses: [{ text: JSON.stringify(EVALUATION_V2) }] },
    {
      name: "evaluator-tools",
      match: { ...STAGE.evaluator, last_role: "user" },
      responses: [{ tool_calls: [{ name: "read", arguments: { path: "src/app.txt" } }, { name: "read", arguments: { path: ".pi/fusion/runs" } }] }],
    },
    candidate,
  ];
}

function rules(evaluatorStages) {
  return agentRules({
    workflow: "investigate", args: INVESTIGATE_ARGS, ask: "please investigate", final: "FINAL: {{tool_results}}",
    failedReply: "noted", stages: evaluatorStages,
  });
}

function writePolicy(env) {
  const route = "scripted/scripted-a";
  env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: "pi-background-tasks.fusion-models.v3",
    candidates: [route, route, route], evaluator: route, merger: route,
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, evaluator_tools: true },
  }));
}

const requestsOf = (env, stage, from = 0) =>
  env.requests().slice(from).filter((q) => q.last_user_text.includes(STAGE[stage].text) &&
    !q.last_user_text.includes(STAGE.merger.text) && !q.last_user_text.includes(STAGE.repair.text));
const bodyText = (q) => JSON.stringify(q.body);

describe("evaluator tools: policy.evaluator_tools", () => {
  test("the evaluator reads under the walls, its sealed log is verified, its checked claim is cited and shown; a tampered log fails the run", async () => {
    await withFixtureEnv({ script: { rules: rules(stages()) } }, async (env) => {
      writePolicy(env);
      const r = await env.print("please investigate");
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed", JSON.stringify(manifest.error));
      assert.deepEqual(manifest.tool_policy.evaluator_tools, INSPECT_TOOLS);
      assert.equal(manifest.capabilities.evaluator, "inspect");
      // The warm evaluator was started with the tools and the audit log of its attempt: it took
      // its input as attempt 1 (a command unlike the stage's is replaced and listed here).
      assert.equal(manifest.warm_children, undefined, JSON.stringify(manifest.warm_children));

      // The evaluator was offered the candidates' tools, asked for v2 with its budget; the merger
      // was told how to treat the checked claims and got them in its input.
      const evaluatorRequests = requestsOf(env, "evaluator");
      assert.equal(evaluatorRequests.length, 2);
      assert.deepEqual(offeredTools(evaluatorRequests[0]).sort(), [...INSPECT_TOOLS].sort());
      assert.ok(bodyText(evaluatorRequests[0]).includes(V2));
      assert.ok(!bodyText(evaluatorRequests[0]).includes(V1));
      assert.ok(bodyText(evaluatorRequests[0]).includes("Your budget is 12 tool calls in all"));
      const [merge] = env.requests().filter((q) => q.last_user_text.includes(STAGE.merger.text));
      assert.ok(bodyText(merge).includes(MERGER_SENTENCE));
      assert.ok(merge.last_user_text.includes("checked_claims"));

      // The read of the project file ran; the run store's was refused by the wall.
      const [results] = evaluatorRequests.filter((q) => q.last_role === "tool").map((q) => q.tool_results);
      assert.equal(results.length, 2);
      assert.equal(results[0].is_error, false);
      assert.match(results[0].text, /FORTY-TWO/);
      assert.match(results[1].text, /^Refused: "\.pi\/fusion\/runs" may not be read: it is Fusion's run store/);

      // Its journal and seal are bound into the manifest, sealed ok and well-formed.
      assert.ok(JOURNAL in manifest.artifacts && SEAL in manifest.artifacts);
      assertConforms("fusion-tool-call.v1.json", path.join(dir, JOURNAL), { jsonl: true });
      assertConforms("fusion-tool-call-seal.v1.json", path.join(dir, SEAL));
      const records = artifactText(dir, JOURNAL).split("\n").filter(Boolean).map((l) => JSON.parse(l));
      const seal = artifactJson(dir, SEAL);
      assert.equal(seal.status, "complete");
      assert.equal(seal.record_count, 2);
      // Journaled as each call ended: the refused one may come first.
      assert.deepEqual(records.map((x) => `${x.tool_name} ${x.status}`).sort(), ["read error", "read ok"]);
      assert.equal(records.find((x) => x.status === "error").error_code, "path_in_run_store");

      // The evaluation is v2; the claim is in result.json and its evidence was checked.
      assertConforms("fusion-evaluation.v2.json", path.join(dir, "evaluation.json"));
      assert.equal(artifactJson(dir, "evaluation.json").schema_version, V2);
      const { details } = artifactJson(dir, "result.json");
      assertValueConforms("fusion-result.v6.json", details, env.tmp, "result-details.json");
      assert.deepEqual(details.checked_claims, [CLAIM]);
      assert.equal(details.citations.checked, 1);
      assert.deepEqual(details.citations.broken, []);
      assert.deepEqual(details.citations.files.map((f) => f.path), ["src/app.txt"]);
      // bg_result's text (quoted by the agent) carries the line and the claim.
      assert.ok(r.stdout.includes(MERGED_TEXT.split("\n")[0]), r.stdout);
      assert.match(r.stdout, /checked claims: 1 \(1 supported\)/);
      assert.match(r.stdout, /- \[supported\] The app gives the answer FORTY-TWO\. \(evidence: src\/app\.txt:1\)/);

      // The same run with the evaluator's journal changed after it exits: tool_audit_invalid.
      const before = new Set(runDirs(env));
      const tampered = await env.print("please investigate", {
        env: { PI_FUSION_CHILD_WRAPPER: WRAPPER, PI_FUSION_TEST_TAMPER: "journal-byte", PI_FUSION_TEST_TAMPER_SLOT: "evaluation" },
      });
      assert.equal(tampered.code, 0, tampered.stderr);
      const failedDir = runDirs(env).find((d) => !before.has(d));
      const failed = manifestOf(failedDir);
      assert.equal(failed.state, "failed");
      assert.equal(failed.error.code, "tool_audit_invalid", failed.error.message);
      assert.equal(failed.error.stage, "evaluation");
      assert.match(failed.error.message, /reason hash_mismatch\b/);
      for (const attempt of failed.attempts.filter((a) => a.stage === "candidate")) assert.equal(attempt.state, "completed");
      assert.ok(!fs.existsSync(path.join(failedDir, "merged.md")));
    });
  });

  test("without the policy the evaluator has no tools and asks for fusion-evaluation.v1", async () => {
    await withFixtureEnv({ script: { rules: rules(fusionRules()) } }, async (env) => {
      const r = await env.print("please investigate");
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed", JSON.stringify(manifest.error));
      assert.deepEqual(manifest.tool_policy.evaluator_tools, []);
      assert.equal(manifest.capabilities.evaluator, "reason");
      const evaluatorRequests = requestsOf(env, "evaluator");
      assert.equal(evaluatorRequests.length, 1);
      assert.deepEqual(offeredTools(evaluatorRequests[0]), []);
      assert.ok(bodyText(evaluatorRequests[0]).includes(V1));
      assert.ok(!bodyText(evaluatorRequests[0]).includes(V2));
      assert.ok(!bodyText(evaluatorRequests[0]).includes("checked_claims"));
      const [merge] = env.requests().filter((q) => q.last_user_text.includes(STAGE.merger.text));
      assert.ok(!bodyText(merge).includes(MERGER_SENTENCE));
      assert.ok(!Object.keys(manifest.artifacts).some((name) => name.startsWith("evaluation.attempt-1.tool-calls")));
      const { details } = artifactJson(dir, "result.json");
      assert.ok(!("checked_claims" in details));
      assert.doesNotMatch(r.stdout, /checked claims/);
    });
  });
});
