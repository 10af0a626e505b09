/**
 * @file Stall detection end to end in the real pinned Pi with the scripted model: a child is
 * stalled when it shows no progress — no output, no tool call, no event of its model's stream —
 * for the bound (`policy.stall_seconds`, fusion-models.v3). A model that streams its thinking and
 * text slowly for longer than the bound is not stalled: the child library's progress frames keep
 * the watchdog quiet (docs/protocol.md, "Progress"). A model whose stream goes silent is stopped
 * with child_stalled naming the slot, the model and the seconds; with quorum 2 the run answers
 * degraded from the other two. Small bounds keep the suite to seconds.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, test } from "node:test";
import { childRun } from "../../support/child_run.mjs";
import {
  CANDIDATE_TEXT, EVALUATION_AB, fusionRules, MERGED_TEXT, STAGE, THIRD_CANDIDATE_ON_B, writeFusionModels,
} from "../../support/fusion_script.mjs";
import { artifactJson, artifactText, manifestOf, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { withPiEnv } from "../../support/pi_harness.mjs";
import { assertConforms } from "../../support/schema_check.mjs";

const RUN_TIMEOUT_MS = 120000;
// The runs' bound. Until a child's first byte its Pi is starting (which writes nothing) and the
// bound is at least the 120 s start-up allowance, so a small bound stops only a child that went
// silent after it began.
const STALL_SECONDS = 6;
// child-run's --idle-ms has no start-up allowance: longer than one cold Pi takes to send its first
// request on a busy two-core machine.
const CHILD_RUN_IDLE_SECONDS = 12;
// Thinking, then the answer, in 12-byte deltas 0.9 s apart: about 20 s of stream, well over both
// bounds, with no byte on the child's pipes from Pi itself until the message ends.
const SLOW_STREAM = { thinking: "Let me think this through carefully, step by step, for a while. ".repeat(2), chunk_bytes: 12, chunk_delay_ms: 900 };
const PROGRESS_SCHEMA = "pi-background-tasks.fusion-child-progress.v1";

/** The progress frames in a child's captured stderr. */
function progressFrames(stderr) {
  const prefix = "@pi-fusion-frame ";
  return stderr.split("\n").filter((l) => l.startsWith(prefix)).map((l) => JSON.parse(l.slice(prefix.length)))
    .filter((f) => f.schema_version === PROGRESS_SCHEMA);
}

/** fusion-models.v3 with candidate 3 on scripted-b and the given stall bound and quorum. */
function writeStallModels(env, { quorum = 2, stall = STALL_SECONDS, grace = 60 } = {}) {
  writeFusionModels(env, {
    schema_version: "pi-background-tasks.fusion-models.v3",
    ...THIRD_CANDIDATE_ON_B,
    policy: { quorum, grace_seconds: grace, max_cost_usd: null, stall_seconds: stall },
  });
}

/** Candidate 3 (scripted-b) answers with `steps`, everything else as fusionRules() says. */
function thirdCandidateRules(steps, overrides = {}) {
  return [{ name: "third", match: { ...STAGE.candidate, model: "scripted-b" }, responses: steps }, ...fusionRules(overrides)];
}

describe("one child under the stall watchdog (pi-fusion child-run)", () => {
  test("a model streaming thinking and text for twice the bound is not stalled: progress counts", () =>
    withPiEnv({ script: { default: { ...SLOW_STREAM, text: "The verified answer." } } }, async (env) => {
      const started = Date.now();
      const r = await childRun(env, { args: ["--idle-ms", String(CHILD_RUN_IDLE_SECONDS * 1000)] });
      const elapsed = Date.now() - started;
      assert.equal(r.code, 0, JSON.stringify({ error: r.out.error, stop: r.out.stop_reason }));
      assert.equal(r.out.ok, true);
      assert.equal(r.out.answer, "The verified answer.");
      assert.ok(elapsed > CHILD_RUN_IDLE_SECONDS * 1000 + 2000, `the stream outlasted the bound (${elapsed} ms)`);
      // Its signs of life: about one frame a second while the model streamed, none after the end.
      const stderr = fs.readFileSync(r.out.artifacts.stderr, "utf8");
      const frames = progressFrames(stderr);
      assert.ok(frames.length >= 5, `${frames.length} progress frames`);
      assert.ok(frames.every((f) => f.source === "model_stream"), JSON.stringify(frames));
      assert.ok(frames.length <= Math.ceil(elapsed / 1000) + 1, `${frames.length} frames in ${elapsed} ms`);
    }));

  test("a stream that goes silent is stopped by the same bound (the check sees a stall)", () =>
    withPiEnv({ script: { default: { stall_after_bytes: 400 } } }, async (env) => {
      const started = Date.now();
      const r = await childRun(env, { args: ["--idle-ms", String(CHILD_RUN_IDLE_SECONDS * 1000)] });
      assert.notEqual(r.code, 0);
      assert.equal(r.out.error.code, "child_timeout", JSON.stringify(r.out.error));
      assert.match(r.out.error.message, /idle limit/);
      assert.ok(Date.now() - started < 60000);
    }));
});

describe("a run's stall bound (fusion-models.v3 policy.stall_seconds)", () => {
  test("quorum 2: a candidate thinking slowly for longer than the bound is used, not stalled", async () => {
    const slow = [{ ...SLOW_STREAM, text: CANDIDATE_TEXT }];
    await withFusionEnv({ script: { rules: thirdCandidateRules(slow) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeStallModels(env);
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      assert.doesNotMatch(r.stderr, /Degraded|stalled/);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      assert.equal("degraded" in manifest, false);
      assert.equal(manifest.config.models.policy.stall_seconds, STALL_SECONDS);
      const third = manifest.attempts.find((a) => a.stage === "candidate" && a.slot === 3);
      assert.equal(third.state, "completed");
      assert.deepEqual(artifactJson(dir, "blind-candidates.json").candidates.map((c) => c.candidate_id), ["A", "B", "C"]);
      // It streamed for longer than the bound, and said so on stderr a frame at a time.
      const frames = progressFrames(artifactText(dir, "candidate-3.attempt-1.stderr.txt"));
      assert.ok(frames.length >= 5, `${frames.length} progress frames`);
      const events = artifactText(dir, "candidate-3.attempt-1.events.jsonl").trim().split("\n").map((l) => JSON.parse(l));
      assert.ok(events.some((e) => e.schema_version === PROGRESS_SCHEMA));
      assertConforms("fusion-manifest.v5.json", `${dir}/manifest.json`);
    });
  });

  test("quorum 2: a candidate whose stream goes silent ends child_stalled, and the run answers degraded", async () => {
    const overrides = { evaluator: [{ text: JSON.stringify(EVALUATION_AB) }], repair: [{ text: JSON.stringify(EVALUATION_AB) }] };
    await withFusionEnv({ script: { rules: thirdCandidateRules([{ stall: true }], overrides) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeStallModels(env);
      const started = Date.now();
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      assert.ok(Date.now() - started < 90000);
      assert.ok(r.stderr.split("\n").includes(
        "Degraded: answered from 2 of 3 candidates; candidate 3 (scripted/scripted-b) failed (child_stalled)."), r.stderr);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      assert.deepEqual(manifest.degraded, { slot: 3, model: "scripted/scripted-b", reason: "failed", code: "child_stalled", grace_seconds: null });
      const third = manifest.attempts.find((a) => a.stage === "candidate" && a.slot === 3);
      assert.equal(third.state, "failed");
      assert.equal(third.error.code, "child_stalled");
      assert.equal(third.error.message,
        `candidate 3 (scripted/scripted-b) stalled: no output, tool call or model-stream progress for ${STALL_SECONDS} s (policy.stall_seconds)`);
      assert.deepEqual(artifactJson(dir, "blind-candidates.json").candidates.map((c) => c.response), [CANDIDATE_TEXT, CANDIDATE_TEXT]);
      assert.deepEqual(survivingChildren(env), []);
    });
  });

  test("quorum 3: the stalled candidate fails the run with child_stalled, resumable", async () => {
    await withFusionEnv({ script: { rules: thirdCandidateRules([{ stall: true }]) }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      writeStallModels(env, { quorum: 3, grace: null });
      const r = await env.print("/fusion Why is the sky blue?", { timeoutMs: RUN_TIMEOUT_MS });
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed", r.stderr);
      assert.equal(manifest.error.code, "child_stalled");
      assert.equal(manifest.error.stage, "candidate");
      assert.equal(manifest.error.slot, 3);
      assert.equal(manifest.error.message,
        `candidate 3 (scripted/scripted-b) stalled: no output, tool call or model-stream progress for ${STALL_SECONDS} s (policy.stall_seconds)`);
      const summary = artifactJson(dir, "failure-summary.json");
      assert.equal(summary.classifications.failure_class, "stall");
      assert.ok(summary.remediation_ids.includes("raise_stall_seconds"), JSON.stringify(summary.remediation_ids));
      assertConforms("fusion-failure-summary.v1.json", `${dir}/failure-summary.json`);
      assert.match(r.stderr, /child_stalled: candidate 3 \(scripted\/scripted-b\) stalled/);
    });
  });
});
