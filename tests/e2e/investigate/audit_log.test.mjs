/**
 * @file The parent's verification of the sealed tool-call audit log, end to end: real candidate
 * children write real logs; a wrapper around each child (PI_FUSION_CHILD_WRAPPER) changes one
 * thing after the child exits and before the parent reads it. Every change fails the run with
 * tool_audit_invalid and the reason that names it, and no answer is merged. A change made after
 * the stage moved on at the child's answer still fails the run before anything is committed. Then the 600-call
 * runtime guard: the 601st call never runs and the run fails with the guard's own code.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { manifestOf, runDirs } from "../../support/fusion_runs.mjs";
import {
  agentFlowRules, auditLog, candidateRequests, candidateRules, FILE_TOOL_CALLS, WRAPPER, withFixtureEnv,
} from "./investigate_support.mjs";

const TAMPERS = [
  ["journal-byte", "hash_mismatch"],
  ["drop-line", "ordinal_sequence"],
  ["reorder", "ordinal_sequence"],
  ["record-after-seal", "records_after_seal"],
  ["seal-count", "count_mismatch"],
  ["missing-seal", "seal_missing"],
  ["executed-bash", "tool_not_allowed"],
  ["drop-last-resealed", "settlement_mismatch"],
];

describe("tool-call audit log verification", () => {
  test("every tamper fails the run as tool_audit_invalid with its reason, and nothing is merged", async () => {
    const rules = agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS }]));
    await withFixtureEnv({ script: { rules } }, async (env) => {
      // Control: the same wrapper that changes nothing lets the run complete, so each failure
      // below is caused by its tamper alone.
      const control = await env.print("please investigate", {
        env: { PI_FUSION_CHILD_WRAPPER: WRAPPER, PI_FUSION_TEST_TAMPER: "none" },
      });
      assert.equal(control.code, 0, control.stderr);
      assert.equal(manifestOf(runDirs(env)[0]).state, "completed");

      for (const [mode, reason] of TAMPERS) {
        const before = new Set(runDirs(env));
        const r = await env.print("please investigate", {
          env: { PI_FUSION_CHILD_WRAPPER: WRAPPER, PI_FUSION_TEST_TAMPER: mode },
        });
        assert.equal(r.code, 0, `${mode}: ${r.stderr}`);
        const dir = runDirs(env).find((d) => !before.has(d));
        const manifest = manifestOf(dir);
        assert.equal(manifest.state, "failed", mode);
        assert.equal(manifest.error.code, "tool_audit_invalid", `${mode}: ${manifest.error.message}`);
        assert.equal(manifest.error.stage, "candidate", mode);
        assert.match(manifest.error.message, new RegExp(`reason ${reason}\\b`), mode);
        assert.ok(!fs.existsSync(path.join(dir, "merged.md")), mode);
        assert.ok(!fs.existsSync(path.join(dir, "evaluation.json")), mode);
        assert.ok(fs.existsSync(path.join(dir, "failure-summary.json")), mode);
        // Fail fast: the first candidate to fail is the run's error; its siblings are cancelled.
        const attempt = manifest.attempts.find((a) => a.slot === manifest.error.slot);
        assert.equal(attempt.error.code, "tool_audit_invalid", mode);
        for (const sibling of manifest.attempts.filter((a) => a.slot !== manifest.error.slot)) {
          assert.ok(["cancelled", "failed"].includes(sibling.state), `${mode}: slot ${sibling.slot} ${sibling.state}`);
        }
      }
    });
  });

  test("a change to the audit log after the answer the stage moved on with still fails the run, late", async () => {
    const rules = agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS }]));
    await withFixtureEnv({ script: { rules } }, async (env) => {
      const r = await env.print("please investigate", {
        env: { PI_FUSION_CHILD_WRAPPER: WRAPPER, PI_FUSION_TEST_TAMPER: "journal-byte", PI_FUSION_TEST_TAMPER_AFTER_ANSWER: "1" },
      });
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.error.code, "tool_audit_invalid", manifest.error.message);
      assert.equal(manifest.error.stage, "candidate");
      assert.match(manifest.error.message,
        /^after its verified answer: its tool-call audit log changed after the answer the stage moved on with: candidate-[123]\.attempt-1\.tool-calls\.jsonl: /);
      // Each candidate's answer verified and the run moved on with it; nothing was committed.
      for (const attempt of manifest.attempts.filter((a) => a.stage === "candidate")) {
        assert.equal(attempt.state, "completed");
        assert.equal(attempt.exit.after_answer, true);
      }
      assert.ok(!fs.existsSync(path.join(dir, "merged.md")));
    });
  });

  test("tool call 601 never runs: the run fails with child_runtime_limit_exceeded and a failed seal", async () => {
    // Ten calls per assistant message, so 600 calls take 60 requests, far below the 550 limit.
    const batch = Array.from({ length: 10 }, () => ({ name: "ls", arguments: { path: "." } }));
    const rules = agentFlowRules([
      { name: "candidate-loop", match: { text: "Answer the request in the following JSON input" }, responses: [{ tool_calls: batch, usage: { input: 10, output: 5 } }] },
    ]);
    await withFixtureEnv({ script: { rules }, timeoutMs: 600000 }, async (env) => {
      const r = await env.print("please investigate", { timeoutMs: 600000 });
      assert.equal(r.code, 0, r.stderr);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed");
      assert.equal(manifest.error.code, "child_runtime_limit_exceeded", manifest.error.message);
      assert.match(manifest.error.message, /tool call 601 exceeds the limit of 600/);
      // The first candidate to reach call 601 fails the run; fail fast cancels its siblings.
      const { seal, records } = auditLog(dir, manifest.error.slot);
      assert.equal(seal.status, "failed");
      assert.equal(seal.failure_code, "child_runtime_limit_exceeded");
      assert.ok(records.slice(0, 600).every((x) => x.status === "ok"));
      assert.ok(records.length > 600 && records.slice(600).every((x) => x.status === "error"), `slot ${manifest.error.slot}: ${records.length}`);
      for (const sibling of manifest.attempts.filter((a) => a.slot !== manifest.error.slot)) {
        assert.ok(["cancelled", "failed"].includes(sibling.state), `slot ${sibling.slot}: ${sibling.state}`);
      }
      // The failing candidate sent 61 requests: 60 batches ran, the 61st answer's batch was
      // refused and nothing went back to the model; no candidate sent more.
      assert.ok(candidateRequests(env).length <= 3 * 61);
      assert.ok(!fs.existsSync(path.join(dir, "merged.md")));
    });
  });
});
