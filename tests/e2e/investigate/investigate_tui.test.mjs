/**
 * @file fusion_investigate in Pi's TUI (tmux): the agent launches the run, the terminal
 * notification wakes it, and it shows the verified answer it retrieved with bg_result; expanded,
 * the run lists the tool calls each candidate made.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MERGED_TEXT, SECOND_CANDIDATE_ON_B, writeFusionModels } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs } from "../../support/fusion_runs.mjs";
import { candidateSection, withTmuxPi } from "../../support/tmux_pi.mjs";
import {
  agentFlowRules, candidateRules, FILE_TOOL_CALLS, RUN_TIMEOUT_MS, withFixtureEnv,
} from "./investigate_support.mjs";

/** A candidate's answer after its tool calls: one citation, of a line past the end of src/app.txt. */
const CITING_ANSWER = "Candidate found it in src/app.txt:9.";

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

test("TUI: the expanded run lists each candidate's tool calls, the refused one marked with its reason, and a broken citation", () => {
  // Candidate 2 (scripted-b) tries a path outside the project besides a good read; 1 and 3 read and list.
  const refused = { name: "read", arguments: { path: "../outside-the-project.txt" } };
  const rules = agentFlowRules([
    ...candidateRules([{ tool_calls: [FILE_TOOL_CALLS[0], refused] }], CITING_ANSWER).map((r) => ({ ...r, name: `b-${r.name}`, match: { ...r.match, model: "scripted-b" } })),
    ...candidateRules([{ tool_calls: [FILE_TOOL_CALLS[0], FILE_TOOL_CALLS[3]] }], CITING_ANSWER),
  ], "FINAL: the calls are listed");
  return withFixtureEnv({ script: { rules } }, (env) => {
    writeFusionModels(env, SECOND_CANDIDATE_ON_B);
    return withTmuxPi(env, { height: 200 }, async (pi) => {
      await pi.waitFor((s) => s.includes(env.cwd), 30000, "the TUI's footer");
      await pi.submit("please investigate");
      const collapsed = await pi.waitFor((s) => s.includes("FINAL: the calls are listed"), RUN_TIMEOUT_MS, "the final answer");
      assert.doesNotMatch(collapsed, /Tool calls:/, "collapsed: no list");
      // The citation check's line is in the run's block (docs/citations.md); ctrl+o lists it.
      assert.match(collapsed, /citations: 1 checked, 1 broken — src\/app\.txt:9 is past the end \(1 line\)/);
      const [dir] = runDirs(env);
      assert.equal(manifestOf(dir).state, "completed");
      pi.keys("C-o");
      const expanded = await pi.waitFor(/Tool calls: 2 tool calls, 1 refused/, 15000, "the expanded tool calls");
      assert.match(expanded, /src\/app\.txt:9 is past the end \(1 line\) \[past_end; in candidate 1, candidate 2, candidate 3\]/);
      // Candidate 2's list: the good read with its size, the refused read with its reason (journal
      // order is the order the calls finished, so each line is looked for on its own; the
      // message box pads lines with spaces).
      const second = candidateSection(expanded, 2);
      assert.match(second, /^\s*Tool calls: 2 tool calls, 1 refused\s*$/m);
      assert.match(second, /^\s+✓ read src\/app\.txt · [\d,]+ bytes\s*$/m);
      assert.match(second, /^\s+✗ read \.\.\/outside-the-project\.txt · refused: path_outside_project\s*$/m);
      // Candidates 1 and 3: a read and an ls, none refused.
      for (const slot of [1, 3]) {
        const own = candidateSection(expanded, slot);
        assert.match(own, /^\s*Tool calls: 2 tool calls\s*$/m);
        assert.match(own, /^\s+✓ read src\/app\.txt · [\d,]+ bytes\s*$/m);
        assert.match(own, /^\s+✓ ls src · [\d,]+ bytes\s*$/m);
        assert.doesNotMatch(own, /refused/);
      }
    });
  });
});
