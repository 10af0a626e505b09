/**
 * @file fusion_investigate in Pi's TUI (tmux): the agent launches the run, the terminal
 * notification wakes it, and it shows the verified answer it retrieved with bg_result.
 */
import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createPiEnv } from "../../support/pi_harness.mjs";
import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { TmuxPi } from "../../support/tmux_pi.mjs";
import {
  agentFlowRules, candidateRules, FILE_TOOL_CALLS, FIXTURE_FILES, PLUGIN, readJson, RUN_TIMEOUT_MS, runDirs,
} from "./investigate_support.mjs";

test("TUI: launch, wake on the notification, and the verified answer on screen", async () => {
  const rules = agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS.slice(0, 2) }]), "FINAL: retrieved in the TUI");
  const env = await createPiEnv({ script: { rules }, files: FIXTURE_FILES, timeoutMs: RUN_TIMEOUT_MS });
  const pi = new TmuxPi(env, { extensions: [PLUGIN] });
  try {
    await pi.waitFor((s) => s.includes(env.cwd), 30000, "the TUI's footer");
    await pi.submit("please investigate");
    await pi.waitFor((s) => s.includes("FINAL: retrieved in the TUI"), RUN_TIMEOUT_MS, "the final answer");
    const [dir] = runDirs(env);
    assert.equal(readJson(path.join(dir, "manifest.json")).state, "completed");
    const retrieved = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_result"));
    assert.ok(retrieved.tool_results[0].text.includes(MERGED_TEXT));
    assert.match(retrieved.tool_results[0].text, /\(verified\)/);
  } finally {
    pi.stop();
    await env.cleanup();
  }
});
