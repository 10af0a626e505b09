/**
 * @file Candidates on one model are named as such: with every slot `$current` (the default) the
 * receipt and bg_result say the agreement of one model is weaker evidence; two of three on one
 * model, or on one model family, get the softer note.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { agentRules, writeFusionModels } from "../../support/fusion_script.mjs";
import { withFusionEnv } from "../../support/fusion_runs.mjs";
import { lastToolResult } from "../../support/pi_harness.mjs";

const ALL_THREE = "All three candidates run on one model (scripted/scripted-a), so their agreement is weaker evidence";
const TWO = "Candidates 1 and 3 run on one model (scripted/scripted-a), so their agreement counts for less.";
const FAMILY = "All three candidates run on one model family (scripted/scripted-a, scripted/scripted-b, scripted-resp/scripted-a), so their agreement counts for less.";

/** The receipt and bg_result texts the agent received for one run with `models` (or the defaults). */
async function agentTexts(models) {
  let texts;
  await withFusionEnv({ script: { rules: agentRules({ final: "Done." }) } }, async (env) => {
    if (models) writeFusionModels(env, models);
    const r = await env.print("please fuse");
    assert.equal(r.code, 0, r.stderr);
    texts = {
      receipt: lastToolResult(env.requests(), "fusion_reason").text,
      result: lastToolResult(env.requests(), "bg_result").text,
    };
  });
  return texts;
}

const judges = { evaluator: "scripted/scripted-a", merger: "scripted/scripted-a" };

describe("candidates on one model", () => {
  test("default slots: the receipt and bg_result say all three share one model", async () => {
    const { receipt, result } = await agentTexts();
    assert.ok(receipt.includes(ALL_THREE), receipt);
    assert.ok(result.includes(ALL_THREE), result);
  });

  // The scripted server offers one family (every model is `scripted-*`, and its third model's
  // window is too small for a candidate), so three families are checked in the unit test
  // (tests/unit/config/shared_model_test.cc), not here.
  test("two of three: the softer note; three of one family: the softer note", async () => {
    const two = await agentTexts({ candidates: ["scripted/scripted-a", "scripted/scripted-b", "scripted/scripted-a"], ...judges });
    assert.ok(two.receipt.includes(TWO), two.receipt);
    assert.ok(two.result.includes(TWO), two.result);
    const family = await agentTexts({ candidates: ["scripted/scripted-a", "scripted/scripted-b", "scripted-resp/scripted-a"], ...judges });
    for (const text of [family.receipt, family.result]) {
      assert.ok(text.includes(FAMILY), text);
      assert.doesNotMatch(text, /weaker evidence/, text);  // a family gets the note, never the warning
    }
  });
});
