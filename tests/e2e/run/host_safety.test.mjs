/**
 * @file The host Pi never dies because of the plugin. Regression: a lone UTF-16 surrogate in a
 * model's tool arguments (or anywhere in the conversation a reason run projects) reached a
 * throwing JSON parse inside the binding and aborted the whole Pi with SIGABRT.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { agentRules, fusionRules, MERGED_TEXT } from "../../support/fusion_script.mjs";
import { artifactText, manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";

const LONE = "\ud800";
const REPLACEMENT = "\ufffd";

describe("lone UTF-16 surrogates", () => {
  test("in fusion_reason arguments and the conversation: the run completes with U+FFFD in its input", async () => {
    const rules = agentRules({
      final: "FINAL: done",
      args: { prompt: `Why ${LONE} is the sky blue?` },
      stages: [...fusionRules(), { name: "earlier", match: { text: "first question" }, responses: [{ text: `An earlier answer with ${LONE} inside.` }] }],
    });
    await withFusionEnv({ script: { rules } }, async (env) => {
      const r = await env.print(["first question", "please fuse"]);
      assert.equal(r.signal ?? null, null, `Pi died: ${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), "FINAL: done");
      const dirs = runDirs(env);
      assert.equal(dirs.length, 1);
      const [dir] = dirs;
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "completed");
      assert.equal(artifactText(dir, "merged.md"), MERGED_TEXT);
      const input = artifactText(dir, "canonical-input.json");
      assert.ok(input.includes(`Why ${REPLACEMENT} is the sky blue?`), "the prompt's surrogate became U+FFFD");
      assert.ok(input.includes(`earlier answer with ${REPLACEMENT} inside`), "the conversation's surrogate became U+FFFD");
    });
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
    await withFusionEnv({ script: { rules } }, async (env) => {
      const r = await env.print("poke");
      assert.equal(r.signal ?? null, null, `Pi died: ${r.stderr}`);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim(), "FINAL: still alive");
      const results = env.requests().find((q) => q.tool_results?.length === calls.length).tool_results;
      assert.deepEqual(results.map((t) => t.name), calls.map((c) => c.name));
      for (const t of results.slice(0, 3)) assert.match(t.text, /Unknown background task ID|not running/, t.text);
    });
  });
});
