/**
 * @file The order check (fusion-models.v3 `policy.order_check: "on_conflict"`) end to end in the
 * real pinned Pi: an evaluation with conflicts gets two blind order-check calls on the evaluator's
 * route, each under another relabelling of the candidates; a checker that always favours whoever
 * is labelled A makes a conflict order-sensitive (recorded in the manifest and result.json, said on
 * print mode's stderr and in bg_result's text, and the merger is told to present both positions),
 * one that favours by content keeps it stable; an evaluation without conflicts asks nothing more.
 * The order-check prompt names no slot, model or evaluation letter.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { EVALUATION, fusionRules, lookupRules, SECOND_CANDIDATE_ON_B, STAGE } from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";

const RUN_TIMEOUT_MS = 120000;
const ORDER_INPUT = "pi-background-tasks.fusion-order-check-input.v1";
const ORDER_SCHEMA = "pi-background-tasks.fusion-order-check.v1";
const MARKER = "MARKER-7731";
const MARKED_TEXT = `Candidate answer with ${MARKER}: Rayleigh scattering of sunlight by air molecules.`;
const RESOLUTION = "RESOLUTION-TEXT-ONLY-THE-MERGER-SEES";
const SENSITIVE = "order-sensitive: present both positions, do not pick one";

const TOPICS = ["which mechanism dominates", "whether dust matters"];

/** A valid evaluation of A, B and C naming `topics` as conflicts between A and B. */
function evaluationWith(topics) {
  return {
    ...EVALUATION,
    conflicts: topics.map((topic) => ({
      topic,
      positions: [{ candidate_id: "A", position: `A on ${topic}` }, { candidate_id: "B", position: `B on ${topic}` }],
      resolution: RESOLUTION,
    })),
  };
}

function verdicts(favoured) {
  return JSON.stringify({ schema_version: ORDER_SCHEMA, verdicts: favoured.map(([topic, f]) => ({ topic, favoured: f })) });
}

/** fusion-models.json v3: every slot on scripted-a but candidate 2 (scripted-b), the order check on. */
function writeOrderCheckModels(env) {
  return env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: "pi-background-tasks.fusion-models.v3",
    ...SECOND_CANDIDATE_ON_B,
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, order_check: "on_conflict" },
  }));
}

const orderRequests = (env, from = 0) => env.requests().slice(from).filter((q) => q.last_user_text.includes(ORDER_INPUT));
const mergeRequests = (env, from = 0) => env.requests().slice(from).filter((q) => q.last_user_text.includes(STAGE.merger.text));

/** What every run that checked the order recorded: attempts, manifest and result.json agree. */
function assertRecorded(dir, env) {
  const manifest = manifestOf(dir);
  assert.equal(manifest.state, "completed");
  assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
  const order = manifest.attempts.filter((a) => a.stage === "order_check");
  assert.deepEqual(order.map((a) => [a.attempt, a.state]), [[1, "completed"], [2, "completed"]]);
  const result = artifactJson(dir, "result.json");
  assertValueConforms("fusion-result.v6.json", result.details, env.tmp, "result-details.json");
  assert.deepEqual(result.details.order_check, manifest.order_check);
  return manifest;
}

describe("order check: policy.order_check on_conflict", () => {
  test("a checker that favours whoever is labelled A: order-sensitive in every record and view; blind prompts", async () => {
    const rules = [
      ...lookupRules("reason-", { ask: "get it" }),
      { name: "order", match: { text: ORDER_INPUT }, responses: [{ text: verdicts([[TOPICS[0], "A"], [TOPICS[1], "none"]]) }] },
      { name: "b", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: MARKED_TEXT }] },
      ...fusionRules({ evaluator: [{ text: JSON.stringify(evaluationWith(TOPICS)) }] }),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeOrderCheckModels(env);
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /\norder-sensitive: 1 of 2 conflicts\n/);
      const [dir] = runDirs(env);
      const manifest = assertRecorded(dir, env);
      // Pass 1 labels the evaluation's C as A, pass 2 its B: the favoured slot moved.
      const map = manifest.anonymous_map;
      assert.deepEqual(manifest.order_check, {
        passes: 2, order_sensitive: 1,
        conflicts: [{ favoured_slots: [map.C, map.B], stable: false }, { favoured_slots: [null, null], stable: true }],
      });

      // Two calls, each under another relabelling: the marked answer (candidate 2) moves letters.
      const calls = orderRequests(env);
      assert.equal(calls.length, 2);
      const inputs = calls.map((q) => JSON.parse(q.last_user_text));
      const markedLetter = (input) => input.candidates.find((c) => c.response === MARKED_TEXT).candidate_id;
      const evalLetter = Object.keys(map).find((k) => map[k] === 2);
      assert.equal(new Set([evalLetter, ...inputs.map(markedLetter)]).size, 3, "three different letters");
      for (const input of inputs) {
        assert.deepEqual(input.candidates.map((c) => c.candidate_id), ["A", "B", "C"]);
        assert.deepEqual(input.conflicts.map((c) => c.topic), TOPICS);
      }
      // Blind: the prompt files name no slot, model, route or the evaluation's letters map.
      for (const attempt of [1, 2]) {
        const prompt = artifactText(dir, `order_check.attempt-${attempt}.prompt.txt`);
        assert.ok(prompt.includes(ORDER_INPUT));
        for (const leak of ["scripted", "candidate-", "Candidate 1", "Candidate 2", "Candidate 3", "slot\"", "anonymous_map", RESOLUTION, JSON.stringify(map)]) {
          assert.ok(!prompt.includes(leak), `the order-check prompt leaks ${leak}`);
        }
        assert.doesNotMatch(prompt, /"[ABC]":[123]\b/);
      }

      // The merger is told which conflict is unresolved.
      const merge = JSON.parse(mergeRequests(env)[0].last_user_text);
      assert.deepEqual(merge.order_check, [
        { topic: TOPICS[0], instruction: SENSITIVE },
        { topic: TOPICS[1], instruction: "stable: the evaluation's resolution held under reordering" },
      ]);
      const mergePrompt = artifactText(dir, "merge.attempt-1.prompt.txt");
      assert.ok(mergePrompt.includes(`{"instruction":"${SENSITIVE}","topic":"${TOPICS[0]}"}`));
      assert.ok(mergePrompt.includes("present both positions fairly and do not pick one"));

      // bg_result's text for the agent of a later Pi says it too.
      const seen = await env.print("get it", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(seen.code, 0, seen.stderr);
      assert.match(seen.stdout, /SEEN: Fusion reason-[0-9a-f]{32} completed \(reason\)\.\n(.*\n)?order-sensitive: 1 of 2 conflicts\n/);
      assert.equal(path.basename(dir).startsWith("reason-"), true);
    });
  });

  test("a checker that favours by content: stable; no conflicts: no order-check request at all", async () => {
    // The candidate whose answer holds the marker, whatever its letter.
    const byContent = ["A", "B", "C"].map((id) => ({
      name: `content-${id}`,
      match: { text: ORDER_INPUT, regex: `"candidate_id":"${id}","response":"[^"]*${MARKER}` },
      responses: [{ text: verdicts([[TOPICS[0], id]]) }],
    }));
    const rules = [
      ...byContent,
      { name: "b", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: MARKED_TEXT }] },
      // The first run's evaluation names one conflict, the second's none.
      ...fusionRules({ evaluator: [{ text: JSON.stringify(evaluationWith([TOPICS[0]])) }, { text: JSON.stringify(EVALUATION) }] }),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeOrderCheckModels(env);
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /\norder check: 1 conflict stable\n/);
      assert.doesNotMatch(r.stderr, /order-sensitive/);
      const [dir] = runDirs(env);
      const manifest = assertRecorded(dir, env);
      assert.deepEqual(manifest.order_check, { passes: 2, order_sensitive: 0, conflicts: [{ favoured_slots: [2, 2], stable: true }] });
      assert.equal(orderRequests(env).length, 2, "exactly two order-check requests");
      assert.deepEqual(JSON.parse(mergeRequests(env)[0].last_user_text).order_check,
        [{ topic: TOPICS[0], instruction: "stable: the evaluation's resolution held under reordering" }]);

      // No conflicts: the same policy asks nothing more, and nothing is recorded.
      const before = env.requests().length;
      const plain = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(orderRequests(env, before).length, 0, "no order-check request");
      assert.equal(plain.code, 0, plain.stderr);
      // No verdict line; the estimate's line for the check says when it would run.
      assert.doesNotMatch(plain.stderr, /order-sensitive|order check:/);
      assert.match(plain.stderr, /\n- order check, 2 calls \(only when the evaluation names conflicts\), scripted\/scripted-a: /);
      assert.equal(mergeRequests(env, before).length, 1);
      assert.equal(env.requests().length - before, 5, "three candidates, the evaluator, the merger");
      const second = runDirs(env).find((d) => d !== dir);
      const plainManifest = manifestOf(second);
      assert.equal(plainManifest.state, "completed");
      assert.equal("order_check" in plainManifest, false);
      assert.deepEqual(plainManifest.attempts.filter((a) => a.stage === "order_check"), []);
      assert.equal("order_check" in artifactJson(second, "result.json").details, false);
      assert.equal("order_check" in JSON.parse(mergeRequests(env, before)[0].last_user_text), false);
    });
  });
});
