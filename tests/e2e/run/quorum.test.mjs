/**
 * @file Quorum 2 with a grace window (fusion-models.v2 `policy`), end to end in the real pinned
 * Pi: a candidate that fails with a provider error or outlasts the grace is left out, the run
 * answers from the two verified candidates as A and B (the missing one is C and appears in no
 * stage input), and the degraded answer says so in the manifest, result.json and every view; a
 * third answer inside the grace is used; an audit failure stays fatal. Quorum 3 (the default) is
 * proved unchanged by the other run suites.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  agentRules, CANDIDATE_TEXT, EVALUATION_AB, fusionRules, MERGED_TEXT, STAGE, THIRD_CANDIDATE_ON_B, writeFusionModelsV2,
} from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";
import { agentFlowRules, candidateRules, FILE_TOOL_CALLS, WRAPPER, withFixtureEnv } from "../investigate/investigate_support.mjs";

const RUN_TIMEOUT_MS = 120000;
const LATE_TEXT = "LATE third answer that must never be used";
const FAILED_SENTENCE =
  "Degraded: answered from 2 of 3 candidates; candidate 3 (scripted/scripted-b) failed (child_exit_failed).";

/**
 * Candidate 3 (on scripted-b) answers with `steps`; the others as fusionRules() says, the
 * evaluator with EVALUATION_AB when `degraded` (an evaluation naming C would fail its contract).
 */
function thirdCandidateRules(steps, { degraded = true } = {}) {
  const overrides = degraded ? { evaluator: [{ text: JSON.stringify(EVALUATION_AB) }], repair: [{ text: JSON.stringify(EVALUATION_AB) }] } : {};
  return [{ name: "third", match: { ...STAGE.candidate, model: "scripted-b" }, responses: steps }, ...fusionRules(overrides)];
}

/** The evaluator's and the merger's stdin (their last user text) of this env's requests. */
function laterStageInputs(env) {
  return env.requests()
    .filter((q) => q.last_user_text.includes(STAGE.evaluator.text) || q.last_user_text.includes(STAGE.merger.text))
    .map((q) => q.last_user_text);
}

/** Checks what a degraded run recorded: manifest, result details, A and B only in every stage input. */
function assertDegradedRun(env, dir, expected) {
  const manifest = manifestOf(dir);
  assert.equal(manifest.state, "completed");
  assert.deepEqual(manifest.degraded, expected);
  assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
  const result = artifactJson(dir, "result.json");
  assert.deepEqual(result.details.degraded, expected);
  assertValueConforms("fusion-result.v6.json", result.details, env.tmp, "result-details.json");
  // The missing candidate is C; the evaluator and the merger saw exactly A and B.
  assert.equal(manifest.anonymous_map.C, expected.slot);
  const blind = artifactJson(dir, "blind-candidates.json");
  assert.deepEqual(blind.candidates.map((c) => c.candidate_id), ["A", "B"]);
  assert.deepEqual(blind.candidates.map((c) => c.response), [CANDIDATE_TEXT, CANDIDATE_TEXT]);
  const inputs = laterStageInputs(env);
  assert.equal(inputs.length, 2, "one evaluator and one merger request");
  for (const input of inputs) {
    assert.doesNotMatch(input, /"candidate_id":"C"/);
    assert.ok(!input.includes(LATE_TEXT));
  }
  // Its attempt is on record as it ended; the answer came from the other two.
  const third = manifest.attempts.find((a) => a.stage === "candidate" && a.slot === expected.slot);
  assert.equal(third.state, expected.reason === "failed" ? "failed" : "cancelled");
  assert.deepEqual(survivingChildren(env), []);
}

describe("quorum 2: a run answers from two candidates and says so", () => {
  test("candidate 3 fails with a provider error: completed, degraded, four other model requests", async () => {
    await withFusionEnv({ script: { rules: thirdCandidateRules([{ status: 500 }]) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2 });
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      // Print mode's stderr says it before the usage line.
      const lines = r.stderr.split("\n");
      const said = lines.indexOf(FAILED_SENTENCE);
      assert.ok(said >= 0, r.stderr);
      assert.ok(said < lines.findIndex((l) => l.startsWith("Usage: ")), r.stderr);
      const [dir] = runDirs(env);
      assertDegradedRun(env, dir, { slot: 3, model: "scripted/scripted-b", reason: "failed", code: "child_exit_failed", grace_seconds: null });
      // Two candidates, the evaluator and the merger; candidate 3's own (retried) requests aside.
      assert.equal(env.requests().filter((q) => q.rule_name !== "third").length, 4);
      assert.ok(env.requests().some((q) => q.rule_name === "third"));
      // A quorum-2 run's evaluator is told it may see two answers, without saying which is missing.
      const evaluator = env.requests().find((q) => q.last_user_text.includes(STAGE.evaluator.text));
      assert.match(JSON.stringify(evaluator.body), /two or three anonymous answers/);
    });
  });

  test("candidate 3 answers after the grace: cut, degraded, its late answer never used; bg_result says it first", async () => {
    const rules = agentRules({ stages: thirdCandidateRules([{ text: LATE_TEXT, delay_ms: 30000 }]) });
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: 1 });
      const started = Date.now();
      const r = await env.print("please fuse", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(Date.now() - started < 30000, "the run did not wait for the straggler");
      const [dir] = runDirs(env);
      assertDegradedRun(env, dir, { slot: 3, model: "scripted/scripted-b", reason: "cut_after_grace", code: null, grace_seconds: 1 });
      // bg_result's text: the line after its header is the degraded sentence, before the answer.
      const result = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_result"));
      const text = result.tool_results.find((t) => t.name === "bg_result").text;
      const [header, second] = text.split("\n");
      assert.match(header, /^Fusion reason-[0-9a-f]{32} completed \(reason\)\.$/);
      assert.equal(second, "Degraded: answered from 2 of 3 candidates; candidate 3 (scripted/scripted-b) was cut after a grace of 1 s.");
      assert.ok(text.indexOf(second) < text.indexOf(MERGED_TEXT));
    });
  });

  test("candidate 3 answers inside the grace: its answer is used and the run is not degraded", async () => {
    await withFusionEnv({ script: { rules: thirdCandidateRules([{ text: CANDIDATE_TEXT, delay_ms: 1500 }], { degraded: false }) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: 30 });
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /Degraded/);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      assert.equal("degraded" in manifest, false);
      assert.equal("degraded" in artifactJson(dir, "result.json").details, false);
      const blind = artifactJson(dir, "blind-candidates.json");
      assert.deepEqual(blind.candidates.map((c) => c.candidate_id), ["A", "B", "C"]);
    });
  });

  // Bug: a window this long was accepted, and now + 1e11 s overflowed the run's clock into the
  // past, so the third candidate was cut the moment two had verified.
  test("a grace of 1e11 s is refused before any model request, with the rule and its range", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: 1e11 });
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stderr, /policy\.grace_seconds must be a number of seconds from 0 to 3000 \(the candidate stage's wall limit\), or null for the default rule \(found 100000000000\)/);
      assert.match(r.stderr, /config_invalid/);
      assert.equal(env.requests().length, 0, "no model request");
      assert.deepEqual(runDirs(env), []);
    });
  });

  test("an audit failure of candidate 3 still fails the run with tool_audit_invalid", async () => {
    // Candidate 3 starts its tool calls 2 s late, so the others verify first and the grace runs:
    // its audit failure must still fail the run.
    const late = { name: "third-tools", match: { ...STAGE.candidate, last_role: "user", model: "scripted-b" }, responses: [{ tool_calls: FILE_TOOL_CALLS, delay_ms: 2000 }] };
    const rules = agentFlowRules([late, ...candidateRules([{ tool_calls: FILE_TOOL_CALLS }])]);
    await withFixtureEnv({ script: { rules } }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: 60 });
      const r = await env.print("please investigate", {
        env: { PI_FUSION_CHILD_WRAPPER: WRAPPER, PI_FUSION_TEST_TAMPER: "journal-byte", PI_FUSION_TEST_TAMPER_SLOT: "3" },
      });
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.error.code, "tool_audit_invalid", manifest.error.message);
      assert.equal(manifest.error.stage, "candidate");
      assert.equal(manifest.error.slot, 3);
      assert.equal("degraded" in manifest, false);
      // The other two were not tampered with: their answers verified, and nothing went on.
      for (const slot of [1, 2]) {
        assert.equal(manifest.attempts.find((a) => a.stage === "candidate" && a.slot === slot).state, "completed");
      }
      assert.equal(laterStageInputs(env).length, 0);
    });
  });

  test("TUI: the progress line counts the grace window down while it runs", async () => {
    await withFusionEnv({ script: { rules: thirdCandidateRules([{ text: LATE_TEXT, delay_ms: 60000 }]) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: 40 });
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const left = (s) => Number(s.match(/fusion reason [0-9a-f]{8}: candidates 2\/3 done · \d+:\d\d · grace (\d+)s left/)?.[1] ?? -1);
        const first = await ui.waitFor((s) => left(s) > 0, 60000, "the grace countdown in the progress line");
        assert.ok(left(first) <= 40, first);
        // It counts down on screen while nothing else happens.
        await ui.waitFor((s) => left(s) > 0 && left(s) <= left(first) - 2, 15000, "the countdown to move");
      });
    });
  });

  test("the TUI block says the answer is degraded before the answer", async () => {
    await withFusionEnv({ script: { rules: thirdCandidateRules([{ status: 500 }]) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2 });
      await withTmuxPi(env, {}, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const screen = await ui.waitFor(/\d+ model requests/, RUN_TIMEOUT_MS, "the completed run");
        assert.match(screen, /completed in \d+:\d\d · degraded/);
        const said = screen.indexOf("Degraded: answered from 2 of 3 candidates; candidate 3 (scripted/scripted-b)");
        assert.ok(said >= 0, screen);
        const answer = screen.indexOf("Sunlight is scattered");
        assert.ok(answer >= 0 && said < answer, screen);
      });
    });
  });
});
