/**
 * @file fusion_investigate in Pi's TUI (tmux): the agent launches the run, the terminal
 * notification wakes it, and it shows the verified answer it retrieved with bg_result.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MERGED_TEXT } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";
import {
  agentFlowRules, candidateRules, FILE_TOOL_CALLS, RUN_TIMEOUT_MS, withFixtureEnv,
} from "./investigate_support.mjs";

test("TUI: launch, wake on the notification, and the verified answer on screen", () => {
  const rules = agentFlowRules(candidateRules([{ tool_calls: FILE_TOOL_CALLS.slice(0, 2) }]), "FINAL: retrieved in the TUI");
  return withFixtureEnv({ script: { rules } }, (env) => withTmuxPi(env, {}, async (pi) => {
    await pi.waitFor((s) => s.includes(env.cwd), 30000, "the TUI's footer");
    await pi.submit("please investigate");
    await pi.waitFor((s) => s.includes("FINAL: retrieved in the TUI"), RUN_TIMEOUT_MS, "the final answer");
    const [dir] = runDirs(env);
    assert.equal(manifestOf(dir).state, "completed");
    const retrieved = env.requests().find((q) => q.tool_results?.some((t) => t.name === "bg_result"));
    assert.ok(retrieved.tool_results[0].text.includes(MERGED_TEXT));
    assert.match(retrieved.tool_results[0].text, /\(verified\)/);
  }));
});
