/**
 * @file The order check (fusion-models.v3 `policy.order_check: "on_conflict"`) end to end in the
 * real pinned Pi: an evaluation with conflicts gets two blind order-check calls on the evaluator's
 * route, each under another relabelling of the candidates; a checker that always favours whoever
 * is labelled A makes a conflict order-sensitive (recorded in the manifest and result.json, said on
 * print mode's stderr and in bg_result's text, and the merger is told to present both positions),
 * one that favours by content keeps it stable; an evaluation without conflicts asks nothing more.
 * The order-check prompt names no slot, model or evaluation letter. An invalid answer gets exactly
 * one repair (fusion-order-check-repair-input.v1) and a second fails the run (evaluation_invalid
 * at stage order_check); a resume after a merger failure reuses the verified order-check attempts
 * and asks none again; the cost cap, passed by the first call, stops the run before the second.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import { EVALUATION, fusionRules, lookupRules, MERGED_TEXT, SECOND_CANDIDATE_ON_B, STAGE, STAGE_USAGE } from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, manifestOf, piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";

const RUN_TIMEOUT_MS = 120000;
const ORDER_INPUT = "pi-background-tasks.fusion-order-check-input.v1";
const ORDER_SCHEMA = "pi-background-tasks.fusion-order-check.v1";
const ORDER_REPAIR = "pi-background-tasks.fusion-order-check-repair-input.v1";
const MARKER = "MARKER-7731";
const MARKED_TEXT = `Candidate answer with ${MARKER}: Rayleigh scattering of sunlight by air molecules.`;
const RESOLUTION = "RESOLUTION-TEXT-ONLY-THE-MERGER-SEES";
const SENSITIVE = "order-sensitive: present both positions, do not pick one";

const TOPICS = ["which mechanism dominates", "whether dust matters"];
// The cost cap test: a cap the run stays under until its first order-check call, whose answer
// reports this many output tokens ($0.60 at the scripted $1.50 per million).
const CAP_USD = 0.5;
const CAP_OUTPUT_TOKENS = 400000;

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

/**
 * fusion-models.json v3: every slot on scripted-a but candidate 2 (scripted-b), the order check on;
 * `policy` adds to or replaces the policy's keys.
 */
function writeOrderCheckModels(env, policy = {}) {
  return env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: "pi-background-tasks.fusion-models.v3",
    ...SECOND_CANDIDATE_ON_B,
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, order_check: "on_conflict", ...policy },
  }));
}

const orderRequests = (env, from = 0) => env.requests().slice(from).filter((q) => q.last_user_text.includes(ORDER_INPUT));
const repairRequests = (env, from = 0) => env.requests().slice(from).filter((q) => q.last_user_text.includes(ORDER_REPAIR));
const mergeRequests = (env, from = 0) => env.requests().slice(from).filter((q) => q.last_user_text.includes(STAGE.merger.text));

/** What every run that checked the order recorded: attempts, manifest and result.json agree. */
function assertRecorded(dir, env, attempts = [1, 2]) {
  const manifest = manifestOf(dir);
  assert.equal(manifest.state, "completed");
  assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
  const order = manifest.attempts.filter((a) => a.stage === "order_check");
  assert.deepEqual(order.map((a) => [a.attempt, a.state]), attempts.map((n) => [n, "completed"]));
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

      // The run list says it under its table, and --json carries the record.
      const runs = piFusion(env.cwd, "runs");
      assert.equal(runs.code, 0, runs.stderr);
      assert.ok(runs.stdout.includes(`\n${path.basename(dir)}: order-sensitive: 1 of 2 conflicts\n`), runs.stdout);
      assert.deepEqual(JSON.parse(piFusion(env.cwd, "runs", "--json").stdout)[0].order_check, manifest.order_check);
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
  test("repair once, resume after a merger failure, a second invalid answer fails, the cost cap stops before the next call", async () => {
    // One conflict. Rules by role: a repair input holds the original input (and so the order-check
    // input's id too), so its rule comes first.
    const valid = verdicts([[TOPICS[0], "A"]]);
    const evaluator = [{ text: JSON.stringify(evaluationWith([TOPICS[0]])) }];
    const script = ({ order, repair = [{ text: valid }], merger = [{ text: MERGED_TEXT }], usage = null }) => ({
      rules: [
        { name: "order-repair", match: { text: ORDER_REPAIR }, responses: repair },
        { name: "order", match: { text: ORDER_INPUT }, responses: order },
        { name: "b", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: MARKED_TEXT }] },
        ...fusionRules({ evaluator, merger }),
      ].map((rule) => (usage === null ? rule : {
        ...rule, responses: rule.responses.map((step) => ({ usage: usage[rule.name] ?? STAGE_USAGE.candidate, ...step })),
      })),
    });
    const byRole = (env, from) => {
      const counts = {};
      for (const q of env.requests().slice(from)) counts[q.rule_name] = (counts[q.rule_name] ?? 0) + 1;
      return counts;
    };
    // Run 1: pass 1's answer is not JSON, its repair valid, pass 2 valid; the merger fails.
    const first = script({ order: [{ text: "not json" }, { text: valid }], merger: [{ malformed: true }] });
    await withFusionEnv({ script: first, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeOrderCheckModels(env);
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Fusion failed \(stage=merge, slot=none, attempt=1\)/);
      assert.match(r.stderr, /repairing order-check JSON/);
      // (However often Pi retries the broken reply, the merger fails.)
      const { merger, ...asked } = byRole(env, 0);
      assert.ok(merger >= 1);
      assert.deepEqual(asked, { candidate: 2, b: 1, evaluator: 1, order: 2, "order-repair": 1 }, "two passes and exactly one repair");
      const [oldDir] = runDirs(env);
      const old = manifestOf(oldDir);
      // Pass 1, its one repair, pass 2: three calls, each recorded.
      assert.deepEqual(old.attempts.filter((a) => a.stage === "order_check").map((a) => [a.attempt, a.state]),
        [[1, "completed"], [2, "completed"], [3, "completed"]]);
      const repairInput = JSON.parse(repairRequests(env)[0].last_user_text);
      assertValueConforms("fusion-order-check-repair-input.v1.json", repairInput, env.tmp, "order-repair-input.json");
      assert.equal(repairInput.schema_version, ORDER_REPAIR);
      assert.equal(repairInput.invalid_output, "not json");
      assert.deepEqual(repairInput.original_input, JSON.parse(orderRequests(env)[0].last_user_text));
      assert.ok(artifactText(oldDir, "order_check.attempt-2.prompt.txt").includes(ORDER_REPAIR));

      // Resumed: the evaluation and all three order-check attempts are reused; only the merger is
      // asked (a new order check would be answered "none", and so change the record).
      env.server.setScript(script({ order: [{ text: verdicts([[TOPICS[0], "none"]]) }] }));
      let from = env.requests().length;
      const resumed = await env.print(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(byRole(env, from), { merger: 1 }, "no new order-check request: the merger only");
      const newDir = runDirs(env).find((d) => d !== oldDir);
      const manifest = assertRecorded(newDir, env, [1, 2, 3]);
      assert.equal(manifest.resumed_from, path.basename(oldDir));
      assert.deepEqual(manifest.anonymous_map, old.anonymous_map);
      // The record the old attempts make: pass 1 favoured the evaluation's C (labelled A), pass 2 its B.
      assert.deepEqual(manifest.order_check, {
        passes: 2, order_sensitive: 1, conflicts: [{ favoured_slots: [old.anonymous_map.C, old.anonymous_map.B], stable: false }],
      });
      for (const attempt of [1, 2, 3]) {
        const row = manifest.attempts.find((a) => a.stage === "order_check" && a.attempt === attempt);
        assert.equal(row.reused_from, path.basename(oldDir), `attempt ${attempt} reused`);
        const file = `order_check.attempt-${attempt}.response.txt`;
        assert.equal(artifactText(newDir, file), artifactText(oldDir, file));
      }
      assert.match(resumed.stderr, /\norder-sensitive: 1 of 1 conflict\n/);

      // A second invalid answer, after the repair: evaluation_invalid at stage order_check.
      const stillInvalid = JSON.stringify({ schema_version: ORDER_SCHEMA, verdicts: [] });
      env.server.setScript(script({ order: [{ text: "not json" }], repair: [{ text: stillInvalid }] }));
      from = env.requests().length;
      const failed = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.deepEqual(byRole(env, from), { candidate: 2, b: 1, evaluator: 1, order: 1, "order-repair": 1 },
        "pass 1 and its one repair; no pass 2, no merger");
      assert.notEqual(failed.code, 0);
      assert.match(failed.stderr, /Fusion failed \(stage=order_check, slot=none, attempt=2\): evaluation_invalid: order-check output does not match pi-background-tasks\.fusion-order-check\.v1 after its one repair: \$\.verdicts/);
      const failedDir = runDirs(env).find((d) => d !== oldDir && d !== newDir);
      const m = manifestOf(failedDir);
      assert.equal(m.state, "failed");
      assert.deepEqual([m.error.code, m.error.stage, m.error.attempt], ["evaluation_invalid", "order_check", 2]);
      assertConforms("fusion-failure-summary.v1.json", `${failedDir}/failure-summary.json`);
      const summary = artifactJson(failedDir, "failure-summary.json");
      assert.deepEqual([summary.terminal_error.code, summary.terminal_error.stage], ["evaluation_invalid", "order_check"]);

      // The cost cap: every answer priced (STAGE_USAGE); the first order-check answer reports
      // enough output to pass the cap on its own, so the second call is never sent.
      writeOrderCheckModels(env, { max_cost_usd: CAP_USD });
      const orderUsage = { ...STAGE_USAGE.evaluator, output: CAP_OUTPUT_TOKENS };
      env.server.setScript(script({ order: [{ text: valid }], usage: { ...STAGE_USAGE, order: orderUsage } }));
      from = env.requests().length;
      const capped = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.deepEqual(byRole(env, from), { candidate: 2, b: 1, evaluator: 1, order: 1 },
        "nothing after the cap: no second order-check call, no merger");
      assert.notEqual(capped.code, 0);
      assert.match(capped.stderr, /Fusion failed \(stage=order_check, slot=none, attempt=2\): cost_cap_exceeded: /);
      assert.equal(env.requests().at(-1).rule_name, "order", "the first order-check call was the last request");
      const cappedDir = runDirs(env).find((d) => ![oldDir, newDir, failedDir].includes(d));
      const c = manifestOf(cappedDir);
      assert.deepEqual([c.state, c.error.code, c.error.stage], ["failed", "cost_cap_exceeded", "order_check"]);
      assert.ok(c.usage.cost.total > CAP_USD, `the first order-check call passed the cap: ${c.usage.cost.total}`);
      assert.deepEqual(c.attempts.filter((a) => a.stage === "order_check").map((a) => [a.attempt, a.state]), [[1, "completed"]]);
      assert.equal(artifactJson(cappedDir, "failure-summary.json").terminal_error.code, "cost_cap_exceeded");
    });
  });
});
