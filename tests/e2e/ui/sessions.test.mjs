/**
 * @file Sessions that behave: after `pi -c`, bg_status lists the session's runs of the earlier Pi
 * process (read from disk) and bg_result accepts a prefix for them.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { MERGED_TEXT, fusionRules } from "../../support/fusion_script.mjs";
import { createPiEnv, lastToolResult, REPO_ROOT } from "../../support/pi_harness.mjs";

const PLUGIN = path.join(REPO_ROOT, "extensions", "fusion.ts");

test("pi -c: bg_status lists the run of the earlier process; bg_kill and bg_result take its prefix", async () => {
  const rules = [
    { name: "after-kill", match: { last_role: "tool", tool_result: "nothing to stop" },
      responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "reason-" } }] }] },
    { name: "after-status", match: { last_role: "tool", tool_result: "earlier Pi process" },
      responses: [{ tool_calls: [{ name: "bg_kill", arguments: { taskId: "reason-" } }] }] },
    { name: "after-result", match: { last_role: "tool", tool_result: "(verified)" }, responses: [{ text: "Done." }] },
    { name: "wake", match: { text: "completed. Call bg_result" },
      responses: [{ tool_calls: [{ name: "bg_result", arguments: { taskId: "reason-" } }] }] },
    { name: "after-receipt", match: { last_role: "tool", tool_result: "Started fusion reason in the background" },
      responses: [{ text: "Launched; waiting." }] },
    ...fusionRules(),
    { name: "ask", match: { text: "please fuse" },
      responses: [{ tool_calls: [{ name: "fusion_reason", arguments: { prompt: "Why is the sky blue?" } }] }] },
    { name: "status", match: { text: "what ran before" }, responses: [{ tool_calls: [{ name: "bg_status", arguments: {} }] }] },
  ];
  const env = await createPiEnv({ script: { rules }, timeoutMs: 90000 });
  try {
    // A session Pi keeps on disk: the agent launches a run and retrieves its answer.
    const first = await env.print("please fuse", { extensions: [PLUGIN], session: true });
    assert.equal(first.code, 0, first.stderr);
    const before = env.requests().length;
    const second = await env.print("what ran before", { extensions: [PLUGIN], session: true, args: ["-c"] });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, "Done.\n");
    const status = lastToolResult(env.requests(), "bg_status");
    assert.match(status.text, /^reason-[0-9a-f]{32} {2}completed {2}fusion reason {2}\(earlier Pi process\)$/m);
    const kill = lastToolResult(env.requests(), "bg_kill");
    assert.match(kill.text, /^reason-[0-9a-f]{32} ran in an earlier Pi process and completed; nothing to stop\.$/);
    const result = lastToolResult(env.requests(), "bg_result");
    assert.match(result.text, /completed \(reason\)/);
    assert.ok(result.text.includes(MERGED_TEXT));
    assert.equal(env.requests().length - before, 4, "status, kill, result, final answer");
  } finally {
    await env.cleanup();
  }
});
