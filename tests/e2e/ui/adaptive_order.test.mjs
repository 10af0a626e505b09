/**
 * @file The adaptive panel and the order check as a person reads them in Pi's TUI (tmux), in one
 * `/fusion` run: candidates 1 and 2 answer identically (no agreement call), so candidate 3 is
 * skipped; the evaluator names two conflicts and the order checkers favour whoever is labelled A,
 * so one conflict is order-sensitive. The block says "Adaptive: 2 of 3 asked", shows slot 3 as
 * skipped and says "order-sensitive: …"; ctrl+o lists each conflict's order check with its topic
 * and what each pass favoured, at no model request.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { EVALUATION_AB, fusionRules, MERGED_TEXT, THIRD_CANDIDATE_ON_B } from "../../support/fusion_script.mjs";
import { manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { withTmuxPi } from "../../support/tmux_pi.mjs";

const RUN_TIMEOUT_MS = 90000;
const ORDER_INPUT = "pi-background-tasks.fusion-order-check-input.v1";
const ORDER_SCHEMA = "pi-background-tasks.fusion-order-check.v1";
const TOPICS = ["which mechanism dominates", "whether dust matters"];

/** EVALUATION_AB naming `TOPICS` as conflicts between A and B. */
const EVALUATION = {
  ...EVALUATION_AB,
  conflicts: TOPICS.map((topic) => ({
    topic,
    positions: [{ candidate_id: "A", position: `A on ${topic}` }, { candidate_id: "B", position: `B on ${topic}` }],
    resolution: "side with A",
  })),
};

/** Every verdict favours the first topic's A (whoever is labelled A) and nobody on the second. */
const ORDER_VERDICTS = JSON.stringify({
  schema_version: ORDER_SCHEMA,
  verdicts: [{ topic: TOPICS[0], favoured: "A" }, { topic: TOPICS[1], favoured: "none" }],
});

describe("the TUI shows an adaptive run's skipped candidate and its order check", () => {
  test("collapsed: 2 of 3 asked, slot 3 skipped, order-sensitive; ctrl+o: each conflict's passes", async () => {
    const rules = [
      { name: "order", match: { text: ORDER_INPUT }, responses: [{ text: ORDER_VERDICTS }] },
      ...fusionRules({ evaluator: [{ text: JSON.stringify(EVALUATION) }] }),
    ];
    await withFusionEnv({ script: { rules }, timeoutMs: RUN_TIMEOUT_MS }, async (env) => {
      env.writeAgentFile("fusion-models.json", JSON.stringify({
        schema_version: "pi-background-tasks.fusion-models.v3",
        ...THIRD_CANDIDATE_ON_B,
        policy: { quorum: 3, grace_seconds: null, max_cost_usd: null, panel: "adaptive", order_check: "on_conflict" },
      }));
      await withTmuxPi(env, { height: 60 }, async (ui) => {
        await ui.ready();
        await ui.submit("/fusion Why is the sky blue?");
        const collapsed = await ui.waitFor(/\d+ model requests? · /, RUN_TIMEOUT_MS, "the completed run");
        // Two candidates, the evaluator, two order checks, the merger: candidate 3 (the only slot
        // on scripted-b) was never asked.
        assert.deepEqual(env.requests().map((q) => q.rule_name).sort(), ["candidate", "candidate", "evaluator", "merger", "order", "order"]);
        assert.equal(env.requests().filter((q) => q.model === "scripted-b").length, 0, "candidate 3 never asked");
        assert.match(collapsed, /^\s*6 model requests · /m);
        assert.match(collapsed, /Adaptive: 2 of 3 asked: candidates 1 and 2 agreed \(identical answers, no check\)\./);
        assert.match(collapsed, /order-sensitive: 1 of 2 conflicts/);
        // Candidates 1 and 2 done, candidate 3 skipped (·), the evaluator and the merger done.
        assert.match(collapsed, /✓ Candidate 1 scripted\/scripted-a\s+✓ Candidate 2 scripted\/scripted-a\s+· Candidate 3 scripted\/scripted-b\s+✓ Evaluator/);
        assert.doesNotMatch(collapsed, /Order check\s*\n/, "the listing only when expanded");

        // The record the listing reads: pass 1 (the evaluation's order) favoured A, pass 2 (the
        // swap) B, and which slots those are.
        const [dir] = runDirs(env);
        const manifest = manifestOf(dir);
        const slotOf = manifest.anonymous_map;
        assert.deepEqual(manifest.order_check.conflicts[0], { favoured_slots: [slotOf.A, slotOf.B], stable: false });
        const name = (letter) => `Candidate ${slotOf[letter]} \\(${letter}\\)`;

        const before = env.requests().length;
        ui.keys("C-o");
        const expanded = await ui.waitFor(/Order check\s*\n/, 10000, "the expanded order check");
        const listing = expanded.slice(expanded.lastIndexOf("Order check"));
        assert.match(listing, new RegExp(`^\\s*• ${TOPICS[0]}: order-sensitive \\(pass 1 favoured ${name("A")}, pass 2 ${name("B")}\\)\\s*$`, "m"));
        assert.match(listing, new RegExp(`^\\s*• ${TOPICS[1]}: stable \\(no pass favoured a candidate\\)\\s*$`, "m"));
        // The candidate it did not ask is said so in the expansion, not taken for a lost file.
        assert.match(expanded, /Candidate 3 \(C\) scripted\/scripted-b\s*\n\s*\(not asked: candidates 1 and 2 agreed\)/);
        assert.doesNotMatch(expanded, /answer file is gone|artifacts are\s+gone/);
        assert.ok(expanded.includes(MERGED_TEXT.split("\n").at(-1).slice(0, 50)));
        assert.equal(env.requests().length, before, "expanding asked no model");
      });
    });
  });
});
