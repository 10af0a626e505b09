/**
 * @file The host Pi never dies because of the plugin. Regression: a lone UTF-16 surrogate in a
 * model's tool arguments (or anywhere in the conversation a reason run projects) reached a
 * throwing JSON parse inside the binding and aborted the whole Pi with SIGABRT.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { createPiEnv, REPO_ROOT } from "../../support/pi_harness.mjs";
import { MERGED_TEXT, fusionRules } from "../../support/fusion_script.mjs";
import { sessionDirs } from "../../support/fusion_runs.mjs";

const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");
const RUN_TIMEOUT_MS = 120000;
const LONE = "\ud800";
const REPLACEMENT = "\ufffd";

function onlyRunDir(env) {
  const root = path.join(env.cwd, ".pi", "fusion");
  const dirs = sessionDirs(root).flatMap((s) => fs.readdirSync(path.join(root, s)).map((r) => path.join(root, s, r)));
  assert.equal(dirs.length, 1);
  return dirs[0];
}

describe("lone UTF-16 surrogates", () => {
  test("in fusion_reason arguments and the conversation: the run completes with U+FFFD in its input", async () => {
    const rules = [
      { name: "after-result", match: { last_role: "tool", tool_result: "(verified)" }, responses: [{ text: "FINAL: done" }] },
      { name: "wake", match: { text: "completed. Call bg_result" }, responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "reason-" } }] }] },
      { name: "after-receipt", match: { last_role: "tool", tool_result: "Started fusion reason in the background" }, responses: [{ text: "Launched; waiting." }] },
      ...fusionRules(),
      { name: "earlier", match: { text: "first question" }, responses: [{ text: `An earlier answer with ${LONE} inside.` }] },
      { name: "ask", match: { text: "please fuse" }, responses: [{ tool_calls: [{ name: "fusion_reason", arguments: { prompt: `Why ${LONE} is the sky blue?` } }] }] },
    ];
    const env = await createPiEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS });
    try {
      const r = await env.print(["first question", "please fuse"], { extensions: [PLUGIN] });
      assert.equal(r.signal ?? null, null, `Pi died: ${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), "FINAL: done");
      const dir = onlyRunDir(env);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
      assert.equal(manifest.state, "completed");
      assert.equal(fs.readFileSync(path.join(dir, "merged.md"), "utf8"), MERGED_TEXT);
      const input = fs.readFileSync(path.join(dir, "canonical-input.json"), "utf8");
      assert.ok(input.includes(`Why ${REPLACEMENT} is the sky blue?`), "the prompt's surrogate became U+FFFD");
      assert.ok(input.includes(`earlier answer with ${REPLACEMENT} inside`), "the conversation's surrogate became U+FFFD");
    } finally {
      await env.cleanup();
    }
  });

  test("in every background-task tool's arguments: a tool error, and the session goes on", async () => {
    const calls = [
      { name: "bg_status", arguments: { taskId: `reason-${LONE}` } },
      { name: "bg_result", arguments: { taskId: LONE } },
      { name: "bg_kill", arguments: { taskId: LONE } },
      { name: "fusion_investigate", arguments: { objective: LONE, background: [LONE], deliverable: ` ${LONE} ` } },
    ];
    // fusion_investigate runs (its surrogates become U+FFFD), so its children get the Fusion roles
    // and its terminal notification wakes the agent once more.
    const rules = [
      { name: "wake", match: { regex: "completed\\. Call bg_result|Fusion failed" }, responses: [{ text: "FINAL: still alive" }] },
      ...fusionRules(),
      { name: "after", match: { last_role: "tool" }, responses: [{ text: "FINAL: still alive" }] },
      { name: "ask", match: { text: "poke" }, responses: [{ tool_calls: calls }] },
    ];
    const env = await createPiEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS });
    try {
      const r = await env.print("poke", { extensions: [PLUGIN] });
      assert.equal(r.signal ?? null, null, `Pi died: ${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), "FINAL: still alive");
      const results = env.requests().find((q) => q.tool_results?.length === calls.length).tool_results;
      assert.deepEqual(results.map((t) => t.name), calls.map((c) => c.name));
      for (const t of results.slice(0, 3)) assert.match(t.text, /Unknown background task ID|not running/, t.text);
    } finally {
      await env.cleanup();
    }
  });
});
