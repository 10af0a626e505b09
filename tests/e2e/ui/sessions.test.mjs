/**
 * @file Sessions that behave: after `pi -c`, bg_status lists the session's runs of the earlier Pi
 * process (read from disk) and bg_result accepts a prefix for them.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { agentRules, callStep, MERGED_TEXT } from "../../support/fusion_script.mjs";
import { withFusionEnv } from "../../support/fusion_runs.mjs";
import { lastToolResult } from "../../support/pi_harness.mjs";

test("pi -c: bg_status lists the run of the earlier process; bg_kill and bg_result take its prefix", async () => {
  const rules = [
    { name: "after-kill", match: { last_role: "tool", tool_result: "nothing to stop" }, responses: [callStep("bg_result", { taskId: "reason-" })] },
    { name: "after-status", match: { last_role: "tool", tool_result: "earlier Pi process" }, responses: [callStep("bg_kill", { taskId: "reason-" })] },
    ...agentRules({ final: "Done." }),
    { name: "status", match: { text: "what ran before" }, responses: [callStep("bg_status", {})] },
  ];
  await withFusionEnv({ script: { rules }, timeoutMs: 90000 }, async (env) => {
    // A session Pi keeps on disk: the agent launches a run and retrieves its answer.
    const first = await env.print("please fuse", { session: true });
    assert.equal(first.code, 0, first.stderr);
    const before = env.requests().length;
    const second = await env.print("what ran before", { session: true, args: ["-c"] });
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
  });
});
