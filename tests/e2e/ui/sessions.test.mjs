/**
 * @file Sessions that behave: after `pi -c`, bg_status lists the session's runs of the earlier Pi
 * process (read from disk) and bg_result accepts a prefix for them; a run of a session Pi never
 * saved (only /fusion in it) is listed and retrievable from the session `pi -c` opens instead.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { agentRules, callStep, fusionRules, MERGED_TEXT } from "../../support/fusion_script.mjs";
import { runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
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

/** Pi's saved session files under `env`'s agent dir. */
function savedSessions(env) {
  const root = path.join(env.agentDir, "sessions");
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true }).filter((name) => name.endsWith(".jsonl"));
}

test("a session with only /fusion, which Pi does not save: the session pi -c opens lists its run and reads it", async () => {
  const rules = [...agentRules({ final: "Done." }), ...fusionRules()];
  await withFusionEnv({ script: { rules }, timeoutMs: 90000 }, async (env) => {
    const first = await env.print("please fuse", { session: true });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(savedSessions(env).length, 1, "a session with a conversation is saved");
    const [earlier] = runDirs(env);

    const only = await env.print("/fusion Why is the sky blue?", { session: true });
    assert.equal(only.code, 0, only.stderr);
    assert.equal(savedSessions(env).length, 1, "Pi saves no session holding only /fusion");
    const id = path.basename(runDirs(env).find((d) => d !== earlier));
    const shortId = id.slice(id.indexOf("-") + 1, id.indexOf("-") + 9);

    env.server.setScript({
      rules: [
        { name: "reply", match: { last_role: "tool" }, responses: [{ text: "SEEN: {{tool_results}}" }] },
        { name: "ask", match: { text: "what ran before" }, responses: [{ tool_calls: [
          { name: "bg_status", arguments: {} }, { name: "bg_result", arguments: { taskId: shortId } },
        ] }] },
      ],
    });
    const later = await env.print("what ran before", { session: true, args: ["-c"] });
    assert.equal(later.code, 0, later.stderr);
    // The row of the unsaved session's run, beside the opened session's own run.
    assert.match(later.stdout, new RegExp(`${id} {2}completed {2}fusion reason {2}\\(from a session Pi did not save\\)`));
    assert.match(later.stdout, new RegExp(`${path.basename(earlier)} {2}completed`));
    assert.ok(later.stdout.includes(MERGED_TEXT), later.stdout);
  });
});

test("after /new, bg_status lists this session's runs only; bg_result still reads the earlier session's run", async () => {
  await withFusionEnv({ script: { rules: agentRules({ final: "Done." }) }, timeoutMs: 90000 }, async (env) => {
    const rpc = env.rpc();
    await rpc.prompt("please fuse");
    await rpc.waitFor((r) => r.type === "message_end" && r.message?.role === "assistant" &&
      JSON.stringify(r.message.content).includes("Done."));
    const [dir] = runDirs(env);
    const id = path.basename(dir);
    const fresh = await rpc.send({ type: "new_session" });
    assert.ok(fresh.success, JSON.stringify(fresh));

    env.server.setScript({
      rules: [
        { name: "reply", match: { last_role: "tool" }, responses: [{ text: "SEEN: {{tool_results}}" }] },
        { name: "ask", match: { text: "what ran before" }, responses: [{ tool_calls: [
          { name: "bg_status", arguments: {} }, { name: "bg_result", arguments: { taskId: id } },
        ] }] },
      ],
    });
    const later = await rpc.prompt("what ran before");
    await rpc.close();
    assert.ok(later.text.includes("No background tasks in this session."), later.text);
    assert.ok(!later.text.includes(`${id}  completed`), later.text);
    assert.ok(later.text.includes(MERGED_TEXT), later.text);
  });
});
