/**
 * @file A stage ends at its child's verified answer, not at the child's exit
 * (docs/architecture-process.md, "Ending at the answer"), inside the real pinned Pi. The children
 * run through a PI_FUSION_CHILD_WRAPPER script that lets the real child answer, then misbehaves
 * while it still holds the child's stdout and stderr: it lingers, writes a frame after the answer,
 * or exits non-zero. A lingering child does not hold the run and is stopped, reaped and recorded;
 * what a child does after its answer still fails the run, with the attempt that did it named.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { fusionRules } from "../../support/fusion_script.mjs";
import { exitOf, manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { agentFlowRules, candidateRules, FILE_TOOL_CALLS, withFixtureEnv } from "../investigate/investigate_support.mjs";

// How long a lingering child would keep the run waiting if its stage waited for its exit.
const LINGER_S = 60;
// A diagnostic line a lingering child writes to stderr after its answer (not a frame).
const LATE_LINE = "still here after the answer";

/** A wrapper that runs the real child, then does `after` (shell) when the role is `role`
 * (every role when null), and exits with the child's status unless `after` exits first. */
function writeWrapper(env, { role = null, after }) {
  const wrapper = path.join(env.root, "wrapper.sh");
  const only = role === null ? "true" : `[ "$PI_FUSION_CHILD_ROLE" = '${role}' ]`;
  fs.writeFileSync(wrapper, [
    "#!/bin/sh",
    '"$@"',
    "rc=$?",
    `if ${only}; then`,
    after,
    "fi",
    'exit "$rc"',
    "",
  ].join("\n"), { mode: 0o755 });
  return wrapper;
}

describe("a stage ends at its child's verified answer", () => {
  test("children that linger after their answers do not hold the run; each is stopped, reaped and its exit recorded", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const wrapper = writeWrapper(env, { after: `echo "${LATE_LINE}" >&2; sleep ${LINGER_S}` });
      const started = Date.now();
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      const elapsed = Date.now() - started;
      assert.equal(r.code, 0, r.stderr);
      // Waiting for the exits would take three lingers (candidates, evaluator, merger).
      assert.ok(elapsed < LINGER_S * 1000, `the run took ${elapsed} ms`);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "completed");
      assert.equal(manifest.attempts.length, 5);
      for (const attempt of manifest.attempts) {
        assert.equal(attempt.state, "completed");
        // The wrapper's shell and its sleep got the group's SIGTERM a while after the answer.
        assert.deepEqual(exitOf(attempt), { code: null, signal: 15, stop_reason: "after_answer", after_answer: true },
          `${attempt.stage} ${attempt.slot}`);
        // Its stderr is bound whole once it was reaped, with what it wrote after its answer.
        const name = attempt.artifacts.find((a) => a.endsWith(".stderr.txt"));
        assert.ok(name && manifest.artifacts[name], `${attempt.stage} ${attempt.slot}: stderr bound`);
        assert.match(fs.readFileSync(path.join(runDirs(env)[0], name), "utf8"), new RegExp(`${LATE_LINE}\n$`));
      }
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("tool-enabled candidates end at their answers too: lingering investigate candidates do not hold the run", async () => {
    const rules = agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS }]));
    await withFixtureEnv({ script: { rules } }, async (env) => {
      const wrapper = writeWrapper(env, { role: "candidate", after: `sleep ${LINGER_S}` });
      const started = Date.now();
      const r = await env.print("please investigate", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      const elapsed = Date.now() - started;
      assert.equal(r.code, 0, r.stderr);
      assert.ok(elapsed < LINGER_S * 1000, `the run took ${elapsed} ms`);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "completed");
      const candidates = manifest.attempts.filter((a) => a.stage === "candidate");
      assert.equal(candidates.length, 3);
      for (const attempt of candidates) {
        assert.equal(attempt.state, "completed");
        assert.deepEqual(exitOf(attempt), { code: null, signal: 15, stop_reason: "after_answer", after_answer: true },
          `candidate ${attempt.slot}`);
        assert.ok(attempt.artifacts.some((name) => name.endsWith(".seal.json")), `candidate ${attempt.slot}`);
      }
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("a child that leaves by itself soon after its answer has its exit recorded", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      const manifest = manifestOf(runDirs(env)[0]);
      for (const attempt of manifest.attempts) {
        const where = `${attempt.stage} ${attempt.slot}`;
        assert.equal(attempt.exit.after_answer, true, where);
        // A Pi child leaves 0.2-0.5 s after its answer; on a machine loaded past the after_answer
        // limit it is stopped instead, which is recorded as such and is not a failure.
        const own = { code: 0, signal: null, stop_reason: "none", after_answer: true };
        const stopped = { code: null, signal: 15, stop_reason: "after_answer", after_answer: true };
        assert.deepEqual(exitOf(attempt), attempt.exit.stop_reason === "none" ? own : stopped, where);
      }
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("a frame after the evaluator's answer fails the run with child_event_invalid, naming the evaluation", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const wrapper = writeWrapper(env, {
        role: "evaluator",
        after: "printf '@pi-fusion-frame {\"late\":true}\\n' >&2",
      });
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr,
        /Fusion failed \(stage=evaluation, slot=none, attempt=1\): child_event_invalid: after its verified answer: /);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "failed");
      const evaluation = manifest.attempts.find((a) => a.stage === "evaluation");
      // Its answer verified and the run moved on with it; the exit came after.
      assert.equal(evaluation.state, "completed");
      assert.deepEqual(exitOf(evaluation), { code: 0, signal: null, stop_reason: "none", after_answer: true });
      assert.ok(manifest.attempts.some((a) => a.stage === "merge"), "the merge stage ran meanwhile");
      assert.ok(!fs.existsSync(path.join(runDirs(env)[0], "merged.md")), "no result was committed");
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("a candidate that exits non-zero after its answer fails the run with child_exit_failed", async () => {
    await withFusionEnv({ script: { rules: fusionRules() } }, async (env) => {
      const wrapper = writeWrapper(env, { role: "candidate", after: "exit 3" });
      const r = await env.print("/fusion Why is the sky blue?", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
      assert.notEqual(r.code, 0);
      assert.match(r.stderr,
        /Fusion failed \(stage=candidate, slot=[123], attempt=1\): child_exit_failed: after its verified answer: /);
      const manifest = manifestOf(runDirs(env)[0]);
      assert.equal(manifest.state, "failed");
      for (const attempt of manifest.attempts.filter((a) => a.stage === "candidate")) {
        assert.deepEqual(exitOf(attempt), { code: 3, signal: null, stop_reason: "none", after_answer: true });
      }
      assert.deepEqual(survivingChildren(env), []);
    });
  });
});
