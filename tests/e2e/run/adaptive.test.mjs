/**
 * @file The adaptive panel (fusion-models.json v3 `policy.panel: "adaptive"`), end to end in the
 * real pinned Pi: candidates 1 and 2 are asked first; when the blind agreement check (a child on
 * the evaluator's route) says their answers agree, candidate 3 is never asked, the evaluator and
 * the merger see A and B only, and the manifest, result.json and every view say "2 of 3 asked"
 * (adaptive, not degraded); identical answers need no check at all; answers that do not agree
 * make candidate 3 run and the run goes on as a full one. A default run is proved unchanged by
 * the other run suites (quorum, panels, resume).
 */
import assert from "node:assert/strict";
import path from "node:path";
import { describe, test } from "node:test";
import {
  agentRules, CANDIDATE_TEXT, EVALUATION_AB, fusionRules, MERGED_TEXT, SECOND_CANDIDATE_ON_B, STAGE,
} from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, piFusion, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";

const RUN_TIMEOUT_MS = 120000;
const FUSION_MODELS_V3 = "pi-background-tasks.fusion-models.v3";
const AGREEMENT_INPUT = "pi-background-tasks.fusion-agreement-input.v1";
const AGREEMENT = "pi-background-tasks.fusion-agreement.v1";
const SECOND_TEXT = "Candidate answer: Rayleigh scattering; air molecules scatter blue light more than red.";
const DIFFERENCES = ["A names the wavelength dependence, B does not"];
// Above the run's minimum (each stage's first request with its known prompt), below what the
// agreement check's prompt with two ~44 KB answers needs on top of it.
const CHECK_STOP_CAP = 0.03;

/** fusion-models.json v3 with candidate 2 on scripted-b and `policy` (panel adaptive unless said). */
function writeAdaptive(env, policy = {}) {
  return env.writeAgentFile("fusion-models.json", JSON.stringify({
    schema_version: FUSION_MODELS_V3, ...SECOND_CANDIDATE_ON_B,
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, panel: "adaptive", ...policy },
  }));
}

/**
 * Candidate 2 (scripted-b) answers `second`; the agreement check answers `verdict`; the evaluator
 * the two-candidate evaluation when `two`. The agreement rule comes first: nothing else is matched
 * by its input's schema id.
 */
function adaptiveStages({ second = SECOND_TEXT, verdict, two = true }) {
  const overrides = two ? { evaluator: [{ text: JSON.stringify(EVALUATION_AB) }] } : {};
  return [
    { name: "agreement", match: { text: AGREEMENT_INPUT }, responses: [{ text: JSON.stringify(verdict) }] },
    { name: "second", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: second }] },
    ...fusionRules(overrides),
  ];
}

/** The env's model requests by role, from the rule that answered them. */
function countByRole(env) {
  const count = { candidate: 0, agreement: 0, evaluator: 0, merger: 0 };
  for (const q of env.requests()) {
    if (q.rule_name === "candidate" || q.rule_name === "second") count.candidate += 1;
    else if (q.rule_name in count) count[q.rule_name] += 1;
  }
  return count;
}

/** The recorded decision is the same in the manifest and result.json, and both conform. */
function assertDecision(env, dir, expected) {
  const manifest = manifestOf(dir);
  assert.equal(manifest.state, "completed");
  assert.deepEqual({ ...manifest.adaptive, check_cost_usd: typeof manifest.adaptive.check_cost_usd }, expected);
  assert.equal("degraded" in manifest, false);
  assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
  const result = artifactJson(dir, "result.json");
  assert.deepEqual(result.details.adaptive, manifest.adaptive);
  assert.equal("degraded" in result.details, false);
  assertValueConforms("fusion-result.v6.json", result.details, env.tmp, "result-details.json");
  return manifest;
}

describe("adaptive panel: the third candidate only when the first two disagree", () => {
  test("they agree: 2 candidates + 1 check + evaluator + merger; A and B only; every view says 2 of 3 asked", async () => {
    const verdict = { schema_version: AGREEMENT, agree: true, differences: [] };
    const rules = agentRules({ stages: adaptiveStages({ verdict }) });
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeAdaptive(env);
      const r = await env.print("please fuse", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(countByRole(env), { candidate: 2, agreement: 1, evaluator: 1, merger: 1 });
      const [dir] = runDirs(env);
      const manifest = assertDecision(env, dir, {
        agree: true, decided_by: "check", differences: [], check_cost_usd: "number", reused: false,
      });
      // Candidate 3 never ran; the check is its own stage on the evaluator's route.
      assert.deepEqual(manifest.attempts.filter((a) => a.stage === "candidate").map((a) => a.slot).sort(), [1, 2]);
      assert.equal(manifest.attempts.filter((a) => a.stage === "agreement").length, 1);
      // The check saw candidate 1 as A and candidate 2 as B, and nothing of slots or models.
      const check = env.requests().find((q) => q.rule_name === "agreement");
      assert.ok(check.last_user_text.includes(CANDIDATE_TEXT) && check.last_user_text.includes(SECOND_TEXT));
      assert.doesNotMatch(check.last_user_text, /scripted-|candidate-3|"C"/);
      // The evaluator and the merger see exactly A and B, as in a quorum-2 run.
      assert.equal(manifest.anonymous_map.C, 3);
      const blind = artifactJson(dir, "blind-candidates.json");
      assert.deepEqual(blind.candidates.map((c) => c.candidate_id), ["A", "B"]);
      for (const q of env.requests().filter((x) => x.rule_name === "evaluator" || x.rule_name === "merger")) {
        assert.doesNotMatch(q.last_user_text, /"candidate_id":"C"/);
        assert.doesNotMatch(q.last_user_text, /adaptive|skipped|agreement-input/);
      }
      // bg_result's text says it right after its header, before the answer.
      const result = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_result"));
      const text = result.tool_results.find((t) => t.name === "bg_result").text;
      const [header, second] = text.split("\n");
      assert.match(header, /^Fusion reason-[0-9a-f]{32} completed \(reason\)\.$/);
      assert.match(second, /^Adaptive: 2 of 3 asked: candidates 1 and 2 agreed \(agreement check, \$\d+\.\d{4}\)\.$/);
      assert.doesNotMatch(text, /Degraded/);
      assert.ok(text.indexOf(second) < text.indexOf(MERGED_TEXT));
      // The run list: its state says adaptive, never degraded, and the sentence follows the table.
      const runs = piFusion(env.cwd, "runs");
      assert.equal(runs.code, 0, runs.stderr);
      assert.match(runs.stdout, /completed, adaptive \(2 of 3 asked\)/);
      assert.match(runs.stdout, /: Adaptive: 2 of 3 asked: candidates 1 and 2 agreed/);
      assert.doesNotMatch(runs.stdout, /degraded/);
      const listed = JSON.parse(piFusion(env.cwd, "runs", "--json").stdout);
      assert.deepEqual(listed[0].adaptive, manifest.adaptive);
    });
  });

  test("identical answers: no check call at all; print mode's stderr says so", async () => {
    const rules = adaptiveStages({ second: `${CANDIDATE_TEXT}  \n`, verdict: { schema_version: AGREEMENT, agree: false, differences: ["x"] } });
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeAdaptive(env);
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      assert.deepEqual(countByRole(env), { candidate: 2, agreement: 0, evaluator: 1, merger: 1 });
      const lines = r.stderr.split("\n");
      const said = lines.findIndex((l) => l.endsWith("Adaptive: 2 of 3 asked: candidates 1 and 2 agreed (identical answers, no check)."));
      assert.ok(said >= 0, r.stderr);
      assert.doesNotMatch(r.stderr, /checking agreement|Degraded/);
      const [dir] = runDirs(env);
      assertDecision(env, dir, { agree: true, decided_by: "identical", differences: [], check_cost_usd: "object", reused: false });
    });
  });

  test("they disagree: candidate 3 is asked and the run completes as a full one", async () => {
    const verdict = { schema_version: AGREEMENT, agree: false, differences: DIFFERENCES };
    const rules = adaptiveStages({ verdict, two: false });
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeAdaptive(env);
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      assert.deepEqual(countByRole(env), { candidate: 3, agreement: 1, evaluator: 1, merger: 1 });
      // The third is asked only after the check said no.
      const order = env.requests().map((q) => q.rule_name);
      assert.ok(order.indexOf("agreement") < order.lastIndexOf("candidate"), order.join(","));
      assert.match(r.stderr, /checking agreement/);
      assert.match(r.stderr, /Adaptive: 3 of 3 asked: candidates 1 and 2 did not agree \(1 difference\), so candidate 3 was asked\./);
      const [dir] = runDirs(env);
      const manifest = assertDecision(env, dir, {
        agree: false, decided_by: "check", differences: DIFFERENCES, check_cost_usd: "number", reused: false,
      });
      assert.deepEqual(manifest.attempts.filter((a) => a.stage === "candidate").map((a) => a.slot).sort(), [1, 2, 3]);
      const blind = artifactJson(dir, "blind-candidates.json");
      assert.deepEqual(blind.candidates.map((c) => c.candidate_id), ["A", "B", "C"]);
    });
  });

  test("a resumed adaptive run reuses the check: no candidate and no check asked again", async () => {
    const verdict = { schema_version: AGREEMENT, agree: true, differences: [] };
    const failingMerger = adaptiveStages({ verdict }).map((r) => (r.name === "merger" ? { ...r, responses: [{ status: 500 }] } : r));
    await withFusionEnv({ script: { rules: failingMerger }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeAdaptive(env);
      const first = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(first.code, 1, first.stderr);
      const [oldDir] = runDirs(env);
      assert.equal(manifestOf(oldDir).error.stage, "merge");
      assert.equal(manifestOf(oldDir).adaptive.decided_by, "check");
      env.server.setScript({ rules: adaptiveStages({ verdict }) });
      const before = env.requests().length;
      const resumed = await env.print(`/fusion-resume ${path.basename(oldDir).slice(7, 17)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, `${MERGED_TEXT}\n`);
      const asked = env.requests().slice(before).map((q) => q.rule_name).sort();
      assert.deepEqual(asked, ["evaluator", "merger"]);
      const newDir = runDirs(env).find((d) => d !== oldDir);
      const manifest = assertDecision(env, newDir, {
        agree: true, decided_by: "check", differences: [], check_cost_usd: "object", reused: true,
      });
      assert.equal(manifest.resumed_from, path.basename(oldDir));
      assert.match(resumed.stderr, /Adaptive: 2 of 3 asked: candidates 1 and 2 agreed \(agreement check reused from the resumed run\)\./);
    });
  });
  test("quorum 2 with a cost cap: candidate 2 fails, candidate 3 takes its place (degraded, no check); the estimate counts the check", async () => {
    const verdict = { schema_version: AGREEMENT, agree: true, differences: [] };
    const rules = adaptiveStages({ verdict }).map((r) => (r.name === "second" ? { ...r, responses: [{ status: 500 }] } : r));
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeAdaptive(env, { quorum: 2, max_cost_usd: 1 });
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      // Candidates 1 and 3 on scripted-a, candidate 2's failed requests (Pi retries a 500); no
      // agreement check.
      const asked = env.requests().map((q) => q.rule_name);
      assert.equal(asked.filter((n) => n === "candidate").length, 2);
      assert.ok(asked.includes("second"));
      assert.deepEqual(countByRole(env), { candidate: 2 + asked.filter((n) => n === "second").length, agreement: 0, evaluator: 1, merger: 1 });
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      assert.deepEqual([manifest.degraded.slot, manifest.degraded.reason], [2, "failed"]);
      assert.equal("adaptive" in manifest, false);
      assert.ok(manifest.usage.cost.total <= 1);
      assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
      assert.match(r.stderr, /Degraded: answered from 2 of 3 candidates/);
      // The /fusion notice's estimate: candidate 3 only on disagreement, the check expected.
      const lines = r.stderr.split("\n");
      assert.ok(lines.some((l) => l.includes("Adaptive panel: the expected figures assume candidates 1 and 2 agree and candidate 3 is not asked; the worst case asks it.")), r.stderr);
      assert.ok(lines.some((l) => l.startsWith("- candidate 3 (only when candidates 1 and 2 disagree), scripted/scripted-a: ")), r.stderr);
      assert.ok(lines.some((l) => l.startsWith("- agreement check (not asked when the two answers are identical), scripted/scripted-a: ")), r.stderr);
    });
  });

  test("a cost cap that cannot pay for the check's prompt stops the run before it: no check, no candidate 3", async () => {
    // Long answers make the check's prompt (both answers) cost more than the cap leaves; the
    // candidates report small usage, so the stop is the check's own first request.
    const long = (marker) => `${marker} ${"Rayleigh scattering favours short wavelengths. ".repeat(900)}`;
    const usage = { input: 1000, output: 100, cache_read: 0, cache_write: 0, reasoning: 0 };
    const verdict = { schema_version: AGREEMENT, agree: true, differences: [] };
    const rules = adaptiveStages({ verdict }).map((r) => {
      if (r.name === "second") return { ...r, responses: [{ text: long("B:"), usage }] };
      if (r.name === "candidate") return { ...r, responses: [{ text: long("A:"), usage }] };
      return r;
    });
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeAdaptive(env, { max_cost_usd: CHECK_STOP_CAP });
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 1, r.stderr);
      assert.deepEqual(countByRole(env), { candidate: 2, agreement: 0, evaluator: 0, merger: 0 });
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.deepEqual([manifest.state, manifest.error.code, manifest.error.stage], ["failed", "cost_cap_exceeded", "agreement"]);
      assert.match(manifest.error.message, /stopped the run before the agreement check: \$\d+\.\d{4} spent so far leaves \$\d+\.\d{4} for it \(the evaluation's and the merge's minimum, \$\d+\.\d{4}, set aside\), less than its first model request needs at the least/);
      assert.match(manifest.error.message, /2 verified candidate answers are kept in .*\/fusion-resume /);
      assert.ok(manifest.usage.cost.total <= CHECK_STOP_CAP);
      const summary = artifactJson(dir, "failure-summary.json");
      assert.equal(summary.progress.candidates.completed, 2);
      assert.equal("agreement" in summary.progress, false);
    });
  });
});
