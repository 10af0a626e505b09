/**
 * @file The retired fusion_brainstorm: pi-fusion never registers it and takes it out of the
 * active tools at session start, even when something else still registers it; an old session's
 * completed brainstorm result still shows in the TUI after `pi -c`.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { offeredTools, PLUGIN, REPO_ROOT, withPiEnv } from "../../support/pi_harness.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RETIRED = path.join(REPO_ROOT, "tests", "e2e", "fixtures", "retired-brainstorm.ts");


test("an old session's brainstorm result still shows; the retired tool is no longer offered", async () => {
  const rules = [
    { name: "after-brainstorm", match: { last_role: "tool", tool_result: "Brainstorm result" }, responses: [{ text: "Noted." }] },
    { name: "ask", match: { text: "brainstorm please" },
      responses: [{ tool_calls: [{ name: "fusion_brainstorm", arguments: { topic: "names" } }] }] },
  ];
  await withPiEnv({ script: { rules, default: { text: "hello back" } }, timeoutMs: 60000 }, async (env) => {
    // The old installation: the brainstorm tool is offered and its result lands in the session.
    const old = await env.print("brainstorm please", { extensions: [RETIRED], session: true });
    assert.equal(old.code, 0, old.stderr);
    assert.ok(offeredTools(env.requests().at(-1)).includes("fusion_brainstorm"), "the old tool was offered");

    // Now with pi-fusion, while the old tool is still registered by someone.
    await withTmuxPi(env, { extensions: [RETIRED, PLUGIN], session: true, args: ["-c"] }, async (ui) => {
      // The footer can be drawn before the restored session is (a sanitized Pi is slow).
      await ui.ready();
      const screen = await ui.waitFor(/Brainstorm result: three ideas/, 30000, "the old brainstorm result");
      assert.match(screen, /Noted\./);
      const before = env.requests().length;
      await ui.submit("hello");
      await ui.waitFor(/hello back/, 30000, "the answer");
      await sleep(200);
      assert.equal(env.requests().length, before + 1);
      const tools = offeredTools(env.requests().at(-1));
      assert.ok(!tools.includes("fusion_brainstorm"), `still offered: ${tools.join(", ")}`);
      assert.ok(tools.includes("fusion_reason"));
    });
  });
});
