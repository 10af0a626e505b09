/**
 * @file /fusion-resume end to end in the real pinned Pi: a run cancelled by a signal, failed at
 * its merger or ended with its host (SIGKILL) is resumed as a new run that reuses the old run's
 * verified candidate answers byte for byte (and its evaluation when all three were reused) and
 * asks the model only for what is missing; a tampered reused file, a completed run and a run
 * already resumed to completion are refused with run_not_resumable before any model request.
 * Only clean evidence is reused: a child that exited non-zero after its answer, or a validate
 * reviewer whose report did not parse, is asked again; and answers a quorum-2 resume reuses never
 * start the grace window.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import {
  CANDIDATE_TEXT, fusionRules, MERGED_TEXT, SECOND_CANDIDATE_ON_B, STAGE, THIRD_CANDIDATE_ON_B, writeFusionModels, writeFusionModelsV2,
} from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, exitOf, manifestOf, piFusion, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { assertConforms, assertValueConforms } from "../../support/schema_check.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";
import { validateAgentRules, validateRules } from "../../support/validate_script.mjs";
import { agentFlowRules, candidateRules, FILE_TOOL_CALLS, withFixtureEnv } from "../investigate/investigate_support.mjs";

const RUN_TIMEOUT_MS = 120000;
const THIRD_TEXT = "Third candidate: scattering of short wavelengths (Rayleigh) makes the sky blue.";

/** Candidate 3 (on scripted-b) answers after `delayMs` the first time, after `thenMs` after that. */
function slowThirdOnce(delayMs, thenMs = 0) {
  return [
    {
      name: "third",
      match: { ...STAGE.candidate, model: "scripted-b" },
      responses: [{ text: THIRD_TEXT, delay_ms: delayMs }, { text: THIRD_TEXT, delay_ms: thenMs }],
    },
    ...fusionRules(),
  ];
}

/** A PI_FUSION_CHILD_WRAPPER that runs the real child, then exits 3 when `when` (shell) holds. */
function exitThreeAfterAnswer(env, when) {
  const wrapper = path.join(env.root, "exit-three.sh");
  fs.writeFileSync(wrapper, ["#!/bin/sh", '"$@"', "rc=$?", `if ${when}; then exit 3; fi`, 'exit "$rc"', ""].join("\n"), { mode: 0o755 });
  return wrapper;
}

/** The model requests of `env` from index `from` on, by the rule that answered them. */
function requestsByRule(env, from = 0) {
  const counts = {};
  for (const q of env.requests().slice(from)) counts[q.rule_name] = (counts[q.rule_name] ?? 0) + 1;
  return counts;
}

/** Waits until candidates 1 and 2 of the only run of `env` are recorded completed. */
async function untilTwoCandidatesVerified(env) {
  for (;;) {
    const [dir] = runDirs(env);
    if (dir) {
      try {
        const done = manifestOf(dir).attempts.filter((a) => a.stage === "candidate" && a.state === "completed");
        if (done.length >= 2) return dir;
      } catch { /* mid-write */ }
    }
    await sleep(100);
  }
}

/**
 * A /fusion run (candidate 3 slow, on scripted-b) whose Pi gets `signal` once candidates 1 and 2
 * verified; resolves {oldDir, ended} once Pi is gone.
 */
async function signalAfterTwoCandidates(env, signal) {
  writeFusionModels(env, THIRD_CANDIDATE_ON_B);
  const first = env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
  const oldDir = await untilTwoCandidatesVerified(env);
  process.kill([...env.children][0].pid, signal);
  return { oldDir, ended: await first };
}

/** The run directory of `env` that is not `old`. */
function newRunDir(env, ...old) {
  const dirs = runDirs(env).filter((d) => !old.includes(d));
  assert.equal(dirs.length, 1, `one new run: ${dirs}`);
  return dirs[0];
}

/** What a resumed run must hold: resumed_from, the reused attempts' bytes equal to the old run's. */
function assertResumed(env, oldDir, newDir, reusedSlots, { evaluation = false } = {}) {
  const oldId = path.basename(oldDir);
  const manifest = manifestOf(newDir);
  assert.equal(manifest.state, "completed");
  assert.equal(manifest.workflow, manifestOf(oldDir).workflow, "the old run's workflow");
  assert.equal(path.basename(newDir).split("-")[0], manifest.workflow);
  assert.deepEqual(manifest.capabilities, manifestOf(oldDir).capabilities);
  assert.equal(manifest.resumed_from, oldId);
  assertConforms("fusion-manifest.v5.json", `${newDir}/manifest.json`);
  const result = artifactJson(newDir, "result.json");
  assert.equal(result.details.resumed_from, oldId);
  assertValueConforms("fusion-result.v6.json", result.details, env.tmp, "resumed-details.json");
  assert.equal(artifactText(newDir, "canonical-input.json"), artifactText(oldDir, "canonical-input.json"));
  for (const slot of [1, 2, 3]) {
    const attempt = manifest.attempts.find((a) => a.stage === "candidate" && a.slot === slot);
    const name = `candidate-${slot}.attempt-1.response.md`;
    const role = result.details.usage_by_role.find((r) => r.role === "candidate" && r.slot === slot);
    assert.equal(role.reused_from, reusedSlots.includes(slot) ? oldId : undefined, `candidate ${slot}'s cost row`);
    if (reusedSlots.includes(slot)) {
      assert.equal(attempt.reused_from, oldId, `candidate ${slot} reused`);
      assert.equal(attempt.usage, null, "a reused attempt spent nothing in this run");
      assert.equal(artifactText(newDir, name), artifactText(oldDir, name), `candidate ${slot}'s bytes`);
    } else {
      assert.equal(attempt.reused_from, undefined, `candidate ${slot} ran again`);
    }
  }
  const evaluator = manifest.attempts.find((a) => a.stage === "evaluation" && a.attempt === 1);
  assert.equal(evaluator.reused_from, evaluation ? oldId : undefined);
  if (evaluation) assert.equal(artifactText(newDir, "evaluation.json"), artifactText(oldDir, "evaluation.json"));
  assert.deepEqual(survivingChildren(env), []);
}

describe("/fusion-resume", () => {
  test("a failed merger: the resume asks for the merger alone; a tampered answer and a completed run are refused", async () => {
    const failingMerger = fusionRules({ merger: [{ status: 500 }] });
    await withFusionEnv({ script: { rules: failingMerger }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const first = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(first.code, 1, first.stderr);
      const [oldDir] = runDirs(env);
      const oldId = path.basename(oldDir);
      assert.equal(manifestOf(oldDir).error.stage, "merge");
      // The person's notice says how to resume it, and what that reuses.
      assert.ok(first.stderr.includes(`Resumable: /fusion-resume ${oldId.slice(7, 15)} runs only what is missing, reusing its 3 verified candidate answers and its evaluation.`), first.stderr);
      env.server.setScript({ rules: fusionRules() });

      // Without an id and without a picker: the usage and the runs it could take, exit 1.
      const usage = await env.print("/fusion-resume", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(usage.code, 1, usage.stderr);
      assert.ok(usage.stderr.includes("Usage: /fusion-resume <run id or prefix>. Resumable runs here, newest first:\n"
        + `  ${oldId.slice(7, 15)} · reason · failed (child_exit_failed) · 3/3 verified · Why is the sky blue?`), usage.stderr);

      // A reused file that no longer matches its ref: refused, naming it, before any request.
      const answer = path.join(oldDir, "candidate-2.attempt-1.response.md");
      const original = fs.readFileSync(answer);
      fs.writeFileSync(answer, Buffer.concat([original, Buffer.from(" tampered")]));
      let before = env.requests().length;
      const tampered = await env.print(`/fusion-resume ${oldId.slice(7, 17)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(tampered.code, 1, tampered.stderr);
      assert.match(tampered.stderr, /run reason-[0-9a-f]{32} cannot be resumed: candidate-2\.attempt-1\.response\.md fails verification/);
      assert.match(tampered.stderr, /error code: run_not_resumable/);
      assert.equal(env.requests().length, before, "no model request");
      assert.equal(runDirs(env).length, 1, "no run directory");
      fs.writeFileSync(answer, original);

      before = env.requests().length;
      const resumed = await env.print(`/fusion-resume ${oldId.slice(7, 17)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.equal(resumed.stdout, `${MERGED_TEXT}\n`);
      assert.deepEqual(requestsByRule(env, before), { merger: 1 }, "the merger alone");
      const newDir = newRunDir(env, oldDir);
      assertResumed(env, oldDir, newDir, [1, 2, 3], { evaluation: true });

      // A completed run has nothing to resume: bg_result reads it.
      before = env.requests().length;
      const done = await env.print(`/fusion-resume ${path.basename(newDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(done.code, 1, done.stderr);
      assert.match(done.stderr, /cannot be resumed: it completed; read its answer with bg_result reason-/);
      assert.equal(env.requests().length, before);

      // The old run's advice was to resume it, never to pay for it again.
      assert.deepEqual(artifactJson(oldDir, "failure-summary.json").remediation_ids, ["inspect_attempt_stderr", "resume_run"]);
      // Resumed to completion, it is offered no more and says where its answer is.
      const newId = path.basename(newDir);
      const none = await env.print("/fusion-resume", { timeoutMs: RUN_TIMEOUT_MS });
      assert.ok(none.stderr.includes("Usage: /fusion-resume <run id or prefix> (no run here can be resumed)"), none.stderr);
      const again = await env.print(`/fusion-resume ${oldId.slice(7, 17)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(again.code, 1, again.stderr);
      assert.ok(again.stderr.includes(`run ${oldId} cannot be resumed: it was resumed as ${newId}, which completed; read its answer with bg_result ${newId}`), again.stderr);
      assert.equal(env.requests().length, before, "no model request");
      assert.equal(runDirs(env).length, 2, "no run directory");
      const listed = JSON.parse(piFusion(env.cwd, "runs", "--json", "--cwd", env.cwd).stdout);
      const old = listed.find((r) => r.run_id === oldId);
      assert.equal(old.resumable, null);
      assert.equal(old.resumed_as, newId);
      assert.match(piFusion(env.cwd, "runs", "--cwd", env.cwd).stdout, new RegExp(`${oldId} +reason +failed, resumed as ${newId.slice(7, 15)} `));
    });
  });

  test("candidate 3's model fails: the failure text offers --slot and quorum 2; a reused slot is refused; --slot 3 runs it on another model", async () => {
    // The error comes late enough that candidates 1 and 2 have verified first, on a loaded machine too.
    const brokenThird = [
      { name: "broken-third", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ status: 500, delay_ms: 4000 }, { status: 500 }] },
      ...fusionRules(),
    ];
    await withFusionEnv({ script: { rules: brokenThird }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, THIRD_CANDIDATE_ON_B);
      const first = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(first.code, 1, first.stderr);
      const [oldDir] = runDirs(env);
      const oldId = path.basename(oldDir);
      const short = oldId.slice(7, 15);
      assert.equal(manifestOf(oldDir).error.slot, 3);
      assert.ok(first.stderr.includes(`If Candidate 3's model keeps failing, you can resume on another: /fusion-resume ${short} --slot 3=provider/model.`), first.stderr);
      assert.ok(first.stderr.includes("With quorum 2 (/fusion-models), a run accepts two verified candidate answers"), first.stderr);

      // Candidate 2's answer verified: it keeps its model, and nothing is asked.
      let before = env.requests().length;
      const refused = await env.print(`/fusion-resume ${short} --slot 2=scripted/scripted-b`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(refused.code, 1, refused.stderr);
      assert.ok(refused.stderr.includes("only a slot whose answer did not verify takes another model: 3, evaluator and merger"), refused.stderr);
      const bad = await env.print(`/fusion-resume ${short} --slot 3=scripted-a`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(bad.code, 1, bad.stderr);
      assert.ok(bad.stderr.includes("--slot 3 needs a route as provider/model"), bad.stderr);
      assert.equal(env.requests().length, before, "a refused resume asks no model");
      assert.deepEqual(runDirs(env), [oldDir], "and makes no run directory");

      before = env.requests().length;
      const r = await env.print(`/fusion-resume ${short} --slot 3=scripted/scripted-a`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stderr.includes("Candidate 3 runs on scripted/scripted-a instead of scripted/scripted-b."), r.stderr);
      const asked = env.requests().slice(before).filter((q) => q.rule_name !== "evaluator" && q.rule_name !== "merger");
      assert.equal(asked.length, 1, "candidate 3 alone is asked again");
      assert.notEqual(asked[0].rule_name, "broken-third", "on the other model");
      const newDir = newRunDir(env, oldDir);
      assertResumed(env, oldDir, newDir, [1, 2]);
      const manifest = manifestOf(newDir);
      assert.equal(manifest.models.candidates[2].model, "scripted-a");
      assert.deepEqual(manifest.config.route_changes, [{ slot: "candidate-3", from: "scripted/scripted-b", to: "scripted/scripted-a" }]);
    });
  });

  test("an evaluator that exits 3 after its answer: the resume runs a fresh evaluator", async () => {
    await withFusionEnv({ script: { rules: fusionRules() }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const wrapper = exitThreeAfterAnswer(env, `[ "$PI_FUSION_CHILD_ROLE" = evaluator ]`);
      const first = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS, env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.equal(first.code, 1, first.stderr);
      const [oldDir] = runDirs(env);
      const old = manifestOf(oldDir);
      assert.equal(old.error.stage, "evaluation");
      const evaluator = old.attempts.find((a) => a.stage === "evaluation");
      assert.equal(evaluator.state, "completed");
      assert.equal(evaluator.exit.code, 3);
      assert.equal(evaluator.error.code, "child_exit_failed", "the late failure is the attempt's own record");
      // Its evaluation is not offered: the text promises the candidates alone.
      assert.match(first.stderr, /Resumable: \/fusion-resume [0-9a-f]{8} runs only what is missing, reusing its 3 verified candidate answers\./);
      const before = env.requests().length;
      const r = await env.print(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(requestsByRule(env, before), { evaluator: 1, merger: 1 });
      assertResumed(env, oldDir, newRunDir(env, oldDir), [1, 2, 3]);
    });
  });

  test("candidate 2 exits 3 after its answer and the merger fails: the resume asks candidate 2 again", async () => {
    const failingMerger = fusionRules({ merger: [{ status: 500 }] });
    await withFusionEnv({ script: { rules: failingMerger }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, SECOND_CANDIDATE_ON_B);
      const wrapper = exitThreeAfterAnswer(env, `[ "$PI_FUSION_CHILD_ROLE" = candidate ] && case "$*" in *scripted-b*) true;; *) false;; esac`);
      const first = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS, env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.equal(first.code, 1, first.stderr);
      const [oldDir] = runDirs(env);
      const old = manifestOf(oldDir);
      assert.equal(old.error.stage, "merge", "the merger's failure is the run's");
      const second = old.attempts.find((a) => a.stage === "candidate" && a.slot === 2);
      assert.deepEqual(exitOf(second), { code: 3, signal: null, stop_reason: "none", after_answer: true });
      assert.match(first.stderr, /Resumable: \/fusion-resume [0-9a-f]{8} runs only what is missing, reusing its 2 verified candidate answers\./);
      env.server.setScript({ rules: fusionRules() });
      const before = env.requests().length;
      const r = await env.print(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(requestsByRule(env, before), { candidate: 1, evaluator: 1, merger: 1 });
      assertResumed(env, oldDir, newRunDir(env, oldDir), [1, 3]);
    });
  });

  test("SIGTERM after two verified candidates: pi -c, /fusion-resume picks the run and asks only for candidate 3, the evaluator and the merger", async () => {
    await withFusionEnv({ script: { rules: slowThirdOnce(30000) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const { oldDir, ended: cancelled } = await signalAfterTwoCandidates(env, "SIGTERM");
      assert.equal(cancelled.code, 143, cancelled.stderr);
      assert.equal(manifestOf(oldDir).state, "cancelled");
      const oldShort = path.basename(oldDir).slice(7, 15);
      // The failure text tells the person how to resume it.
      assert.match(cancelled.stderr, new RegExp(`Resumable: /fusion-resume ${oldShort} runs only what is missing, reusing its 2 verified candidate answers\\.`));

      const before = env.requests().length;
      await withTmuxPi(env, { args: ["-c"] }, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion-resume");
        const picker = await ui.waitFor(new RegExp(`${oldShort} · reason · cancelled · 2/3 verified · Why is the sky blue\\?`), 30000, "the picker");
        assert.match(picker, /Resume which Fusion run\? \(newest first\)/);
        ui.keys("Enter");
        const done = await ui.waitFor(/3 model requests/, RUN_TIMEOUT_MS, "the resumed run's answer");
        assert.match(done, /Sunlight is scattered by air molecules/);
      });
      assert.deepEqual(requestsByRule(env, before), { third: 1, evaluator: 1, merger: 1 });
      assertResumed(env, oldDir, newRunDir(env, oldDir), [1, 2]);
    });
  });

  // The resume runs under quorum 2 with a 1 s grace window, and candidate 3 answers 4 s after its
  // start (the 20 s against the 15 s default floor, scaled down): reused answers do not
  // start the window, so it is neither cut nor degraded.
  test("a host killed (SIGKILL) mid-run: host_ended, resumed in json mode with the answer in its event; a quorum-2 resume waits for the third", async () => {
    await withFusionEnv({ script: { rules: slowThirdOnce(30000, 4000) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      const { oldDir } = await signalAfterTwoCandidates(env, "SIGKILL");
      writeFusionModelsV2(env, THIRD_CANDIDATE_ON_B, { quorum: 2, grace_seconds: 1 });
      const before = env.requests().length;
      const r = await env.json(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      const old = manifestOf(oldDir);
      assert.equal(old.state, "failed");
      assert.equal(old.error.code, "host_ended");
      assert.deepEqual(requestsByRule(env, before), { third: 1, evaluator: 1, merger: 1 });
      const newDir = newRunDir(env, oldDir);
      assertResumed(env, oldDir, newDir, [1, 2]);
      assert.ok(r.stdout.includes(JSON.stringify(MERGED_TEXT).slice(1, -1)), "the answer travels in an event");
      const resumed = manifestOf(newDir);
      assert.equal(resumed.degraded, undefined, "not degraded");
      assert.equal(resumed.attempts.find((a) => a.slot === 3).state, "completed", "candidate 3 not cut");
      assert.ok(!r.stderr.includes("waiting up to"), "no grace window started");
    });
  });

  test("validate: a dropped reviewer runs again with the two verified reused; the report's merger once", async () => {
    const first = [
      { name: "down", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ status: 500 }] },
      ...validateRules({ merger: [{ status: 500 }] }),
    ];
    await withFusionEnv({ script: { rules: [...validateAgentRules(), ...first] }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, { ...THIRD_CANDIDATE_ON_B, candidates: ["scripted/scripted-a", "scripted/scripted-b", "scripted/scripted-a"] });
      await env.print("please validate", { timeoutMs: RUN_TIMEOUT_MS });
      const [oldDir] = runDirs(env);
      assert.equal(manifestOf(oldDir).error.stage, "merge");
      env.server.setScript({ rules: validateRules() });
      const before = env.requests().length;
      const r = await env.print(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^# Validation report\n\n## Summary\n/);
      assert.deepEqual(requestsByRule(env, before), { reviewer: 1, evaluator3: 1, merger: 1 });
      assertResumed(env, oldDir, newRunDir(env, oldDir), [1, 3]);
    });
  });

  test("validate: two reports that do not parse are both asked again", async () => {
    const first = [
      { name: "invalid", match: { ...STAGE.candidate, model: "scripted-b" }, responses: [{ text: "Looks good to me.", delay_ms: 1500 }] },
      ...validateRules(),
    ];
    await withFusionEnv({ script: { rules: [...validateAgentRules(), ...first] }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeFusionModels(env, { ...THIRD_CANDIDATE_ON_B, candidates: ["scripted/scripted-a", "scripted/scripted-b", "scripted/scripted-b"] });
      const ran = await env.print("please validate", { timeoutMs: RUN_TIMEOUT_MS });
      // A reviewer is announced as landed only once its report parsed.
      assert.match(ran.stderr, /candidate 1 landed/);
      assert.doesNotMatch(ran.stderr, /candidate [23] landed/);
      const [oldDir] = runDirs(env);
      const old = manifestOf(oldDir);
      assert.equal(old.error.code, "validation_reports_invalid");
      for (const slot of [2, 3]) {
        const reviewer = old.attempts.find((a) => a.stage === "candidate" && a.slot === slot);
        assert.equal(reviewer.error?.code, "validation_reports_invalid", `reviewer ${slot}'s report is recorded as unusable`);
      }
      env.server.setScript({ rules: validateRules() });
      const before = env.requests().length;
      const r = await env.print(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(requestsByRule(env, before), { reviewer: 2, evaluator3: 1, merger: 1 });
      assertResumed(env, oldDir, newRunDir(env, oldDir), [1]);
    });
  });

  test("investigate: reused candidates' audit logs are verified again and copied; only the merger runs", async () => {
    const candidates = candidateRules([{ tool_calls: FILE_TOOL_CALLS }]);
    const rules = agentFlowRules(candidates, "DONE").map((rule) => (rule.name === "merger" ? { ...rule, responses: [{ status: 500 }] } : rule));
    await withFixtureEnv({ script: { rules } }, async (env) => {
      await env.print("please investigate", { timeoutMs: RUN_TIMEOUT_MS });
      const [oldDir] = runDirs(env);
      assert.equal(manifestOf(oldDir).error.stage, "merge");
      // The agent's notice asks it to suggest the resume, not to run again.
      const notice = env.requests().find((q) => q.rule_name === "failed");
      assert.match(notice.last_user_text, /Resumable: the person can resume this run with \/fusion-resume [0-9a-f]{8}, .*Suggest that to them rather than starting the run again; resuming is their decision\./);
      env.server.setScript({ rules: agentFlowRules(candidates, "DONE") });
      const before = env.requests().length;
      const r = await env.print(`/fusion-resume ${path.basename(oldDir)}`, { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      assert.deepEqual(requestsByRule(env, before), { merger: 1 });
      const newDir = newRunDir(env, oldDir);
      assertResumed(env, oldDir, newDir, [1, 2, 3], { evaluation: true });
      for (const slot of [1, 2, 3]) {
        for (const file of ["tool-calls.jsonl", "seal.json"]) {
          const name = `candidate-${slot}.attempt-1.${file}`;
          assert.equal(artifactText(newDir, name), artifactText(oldDir, name), name);
        }
      }
      // What the candidates looked at is still listed, from the copied logs.
      assert.match(r.stderr, /candidate 1 landed · scripted\/scripted-a · reused from [0-9a-f]{8} · [\d,]+ bytes · 4 tool calls/);
    });
  });
});
