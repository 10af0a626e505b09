/**
 * @file fusion_validate in Pi's TUI (tmux): the expanded run shows each reviewer's findings as a
 * review (count, severity, summary, location), not the reviewer's raw JSON report.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";
import { launchRules, resultRule, wakeRule } from "../../support/fusion_script.mjs";
import { finding, VALIDATE_ARGS, validateRules } from "../../support/validate_script.mjs";

const RUN_TIMEOUT_MS = 180000;

test("TUI: the expanded validate run reads like a review", () => {
  // The agent retrieves the answer and says only "Done.", so the run's blocks stay on screen.
  const rules = [
    resultRule("Done."), wakeRule("validate", "Call bg_result"),
    ...launchRules({ workflow: "validate", args: VALIDATE_ARGS, ask: "please validate", stages: [] }),
    ...validateRules(),
  ];
  return withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, (env) => withTmuxPi(env, { height: 200 }, async (pi) => {
    await pi.waitFor((s) => s.includes(env.cwd), 30000, "the TUI's footer");
    await pi.submit("please validate");
    await pi.waitFor((s) => s.includes("Done."), RUN_TIMEOUT_MS, "the agent's last word");
    pi.keys("C-o");
    const screen = await pi.waitFor((s) => s.includes("Candidate 3 ("), 20000, "the expanded reviewers");
    const { summary, location } = finding();
    // Each of the three reviewers: its count line, its finding's summary and location.
    assert.equal(screen.split("1 finding: 1 high.").length - 1 >= 3, true, screen);
    assert.ok(screen.includes(`high: ${summary}`), screen);
    assert.ok(screen.includes(`Location: ${location}`), screen);
    assert.doesNotMatch(screen, /"schema_version"|"findings":/, "no raw report JSON");
  }));
});
