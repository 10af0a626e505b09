/**
 * @file Post-run calibration through the real pinned Pi: a stage whose first provider request
 * used more prompt tokens than its one-request forecast writes
 * `<prefix>.calibration-violation.json` (fusion-calibration-violation.v2) and raises a calibration
 * warning in progress and in the result details; an agent loop's later requests, however large,
 * are total usage and never an under-forecast.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { EVALUATION, MERGED_TEXT, STAGE, fusionRules } from "../../support/fusion_script.mjs";
import { FIXTURE_FILES, agentFlowRules } from "../investigate/investigate_support.mjs";
import { artifactJson, manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms } from "../../support/schema_check.mjs";
const HUGE = 900000;  // far above any forecast of these small prompts

describe("post-run calibration", () => {
  test("an evaluator whose first request is under-forecast: violation artifact, progress and result warning", async () => {
    const rules = fusionRules({ evaluator: [{ text: JSON.stringify(EVALUATION), usage: { input: HUGE, output: 10 } }] });
    await withFusionEnv({ script: { rules } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const dir = runDirs(env)[0];
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      const name = "evaluation.attempt-1.calibration-violation.json";
      assert.ok(manifest.artifacts[name], "the violation is bound in the manifest");
      const violation = artifactJson(dir, name);
      assert.equal(violation.schema_version, "pi-background-tasks.fusion-calibration-violation.v2");
      assert.equal(violation.stage, "evaluation");
      assert.equal(violation.attempt, 1);
      assert.equal(violation.observed_input_tokens, HUGE);
      assert.equal(violation.under_forecast_tokens, HUGE - violation.forecast_input_tokens);
      assertConforms("fusion-calibration-violation.v2.json", path.join(dir, name));
      assert.ok(manifest.attempts.find((a) => a.stage === "evaluation").artifacts.includes(name));
      // Only the evaluator was under: no other stage has a violation.
      assert.deepEqual(Object.keys(manifest.artifacts).filter((n) => n.includes("calibration")), [name]);
      assert.match(r.stderr, new RegExp(`calibration warning \\(${violation.under_forecast_tokens} tokens under forecast\\)`));
      const result = artifactJson(dir, "result.json");
      assert.deepEqual(result.details.warnings, [{
        kind: "calibration",
        stage: "evaluation",
        message: `calibration warning (${violation.under_forecast_tokens} tokens under forecast)`,
      }]);
    });
  });

  test("an agent loop's later requests are total usage, never an under-forecast", async () => {
    // Each investigate candidate asks for one tool (a small first request), then answers with a
    // second request that reports far more input than any forecast.
    const candidates = [
      { name: "candidate-answer", match: { ...STAGE.candidate, last_role: "tool" }, responses: [{ text: "Candidate found: {{tool_results}}", usage: { input: HUGE, output: 10 } }] },
      { name: "candidate-tools", match: { ...STAGE.candidate, last_role: "user" }, responses: [{ tool_calls: [{ name: "ls", arguments: { path: "src" } }] }] },
    ];
    await withFusionEnv({ script: { rules: agentFlowRules(candidates) }, files: FIXTURE_FILES }, async (env) => {
      const r = await env.print("please investigate");
      assert.equal(r.code, 0, r.stderr);
      const dir = runDirs(env)[0];
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      // The later requests count in the total usage ...
      assert.ok(manifest.usage.input >= 3 * HUGE, `usage ${manifest.usage.input}`);
      // ... but no stage was under its one-request forecast.
      assert.deepEqual(Object.keys(manifest.artifacts).filter((n) => n.includes("calibration")), []);
      assert.doesNotMatch(r.stderr, /calibration warning/);
      assert.deepEqual(artifactJson(dir, "result.json").details.warnings, []);
    });
  });
});
