/**
 * @file Warm candidates as a person sees them in Pi's TUI (tmux): with keep_warm_seconds set, the
 * second `/fusion` run's candidates run in pooled processes; while they work, the run's live line
 * names them "candidate N (warm)" and each landed candidate's row ends "· warm"; ctrl+o on the
 * finished run says "started warm: a pooled Pi process, its task 1" under each candidate. The
 * first run, cold, says none of it.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { CANDIDATE_TEXT, EVALUATION, fusionRules, STAGE } from "../../support/fusion_script.mjs";
import { withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 90000;
const SECOND = "Why is the sunset red?";

describe("the TUI shows warm candidates", () => {
  test("the second run's live line and landed rows say warm; ctrl+o names each candidate's task", async () => {
    // The second run's candidates take a moment, so its live view can be read.
    const rules = [
      { name: "held", match: { ...STAGE.candidate, body: SECOND }, responses: [{ text: CANDIDATE_TEXT, delay_ms: 2500 }] },
      // ... and its evaluator too, so the landed rows stay on screen a while.
      { name: "held-evaluator", match: { ...STAGE.evaluator, body: SECOND }, responses: [{ text: JSON.stringify(EVALUATION), delay_ms: 2000 }] },
      ...fusionRules(),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      env.writeAgentFile("fusion-models.json", JSON.stringify({
        schema_version: "pi-background-tasks.fusion-models.v3",
        candidates: ["scripted/scripted-a", "scripted/scripted-a", "scripted/scripted-b"],
        evaluator: "scripted/scripted-a",
        merger: "scripted/scripted-a",
        policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, keep_warm_seconds: 60 },
      }));
      await withTmuxPi(env, { height: 70 }, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const first = await ui.waitFor(/\d+ model requests? · /, RUN_TIMEOUT_MS, "the first run's end");
        assert.doesNotMatch(first, /\(warm\)|started warm/, "the first run started cold");

        await ui.submit(`/fusion ${SECOND}`);
        // While the candidates work: the run's status line names them warm.
        // (A child is listed once its first sign of life arrived: wait for all three.)
        await ui.waitFor(/candidate 1 \(warm\) \d+s ago, candidate 2 \(warm\) \d+s ago, candidate 3 \(warm\) \d+s ago/,
          RUN_TIMEOUT_MS, "the warm status line");
        // Each candidate's row as it lands says warm too.
        await ui.waitFor(/✓ Candidate 1 scripted\/scripted-a · [^\n]* · warm[\s\S]*✓ Candidate 2 scripted\/scripted-a · [^\n]* · warm[\s\S]*✓ Candidate 3 scripted\/scripted-b · [^\n]* · warm/,
          RUN_TIMEOUT_MS, "the landed rows");

        const done = await ui.waitFor(/(\d+ model requests? · [^\n]*\n[\s\S]*){2}/, RUN_TIMEOUT_MS, "the second run's end");
        assert.doesNotMatch(done.slice(done.lastIndexOf(SECOND)), /\(warm\)/, "the finished run's slots say nothing more");
        ui.keys("C-o");
        const expanded = await ui.waitFor(/started warm: a pooled Pi process, its task 1/, 10000, "the expanded warm note");
        const second = expanded.slice(expanded.lastIndexOf(SECOND));
        assert.equal(second.match(/started warm: a pooled Pi process, its task 1/g)?.length, 3, second);
      });
    });
  });
});
