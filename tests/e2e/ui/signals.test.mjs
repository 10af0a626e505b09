/**
 * @file A signal to Pi in print mode: SIGTERM (or SIGHUP) cancels the active runs, the
 * cancellation says a signal asked and that quitting cancels runs, it is durable, Pi exits
 * promptly with the signal's code, and no model request follows — for a /fusion run and for a
 * run the agent launched (held before settling, never woken for another turn).
 */
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { CANDIDATE_TEXT, fusionRules, launchRules } from "../../support/fusion_script.mjs";
import { latencyLimitMs } from "../../support/sanitizer_env.mjs";

// Pi exits at once on a signal: within 5 s (measured 0.6 s; under ASan its leak scan adds seconds).
const EXIT_WITHIN_MS = latencyLimitMs(5000);
// Candidates that answer only after 20 s keep the run in its candidate stage when the signal comes.
const SLOW = fusionRules({ candidate: [{ text: CANDIDATE_TEXT, delay_ms: 20000 }] });

/** Starts `run`, signals Pi once the three candidates have asked the model, and awaits the end. */
async function signalDuringCandidates(env, run, signal) {
  const done = run();
  while (env.requests().filter((q) => q.rule_name === "candidate").length < 3) {
    await sleep(100);
  }
  const before = env.requests().length;
  const [pi] = [...env.children];
  const sentAt = Date.now();
  process.kill(pi.pid, signal);
  const r = await done;
  await sleep(1000);  // a request caused by the shutdown would arrive by now
  return { r, afterSignalMs: Date.now() - sentAt - 1000, newRequests: env.requests().length - before };
}

function assertCancelledBySignal(env, r, code) {
  assert.equal(r.code, code, r.stderr);
  assert.match(r.stderr, /fusion reason reason-[0-9a-f]{32} cancelled by a signal to Pi\n/);
  assert.match(r.stderr, /Pi cancels active runs when it quits or reloads\./);
  const [dir] = runDirs(env);
  assert.equal(manifestOf(dir).state, "cancelled");
}

describe("a signal to Pi in print mode", () => {
  test("/fusion: SIGTERM cancels the run, says who asked, and Pi exits at once", async () => {
    await withFusionEnv({ script: { rules: SLOW }, timeoutMs: 60000 }, async (env) => {
      const { r, afterSignalMs, newRequests } = await signalDuringCandidates(
        env, () => env.print("/fusion Why is the sky blue?"), "SIGTERM");
      assertCancelledBySignal(env, r, 143);
      assert.equal(r.stdout, "");
      assert.ok(afterSignalMs < EXIT_WITHIN_MS, `Pi took ${afterSignalMs} ms to exit after the signal`);
      assert.equal(newRequests, 0);
    });
  });

  test("a run the agent launched: SIGHUP lets the held agent go without another model turn", async () => {
    await withFusionEnv({ script: { rules: launchRules({ stages: SLOW }) }, timeoutMs: 60000 }, async (env) => {
      const { r, afterSignalMs, newRequests } = await signalDuringCandidates(
        env, () => env.print("please fuse"), "SIGHUP");
      assert.equal(newRequests, 0, "the agent was woken for another turn");
      assertCancelledBySignal(env, r, 129);
      assert.ok(afterSignalMs < EXIT_WITHIN_MS, `Pi took ${afterSignalMs} ms to exit after the signal`);
    });
  });
});
