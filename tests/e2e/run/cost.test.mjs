/**
 * @file What a run costs, measured and forecast, through the real pinned Pi: usage and cost per
 * role summed from the children's own usage records (the scripted model's fixed usage priced by
 * the route's models.json prices), model requests counted as requests (a tool-using candidate
 * makes two), and the cost estimate in the launch receipt, checked against the budget plan.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { agentRules, fusionRules, MERGED_TEXT } from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, runDirs, withFusionEnv } from "../../support/fusion_runs.mjs";
import { lastToolResult } from "../../support/pi_harness.mjs";
import { agentFlowRules, candidateRules, investigateBatches, withFixtureEnv } from "../investigate/investigate_support.mjs";

// The scripted routes' prices ($ per million tokens, tests/support/scripted_model/models_json.mjs).
const PRICE = { input: 0.5, output: 1.5 };
// Fixed usage per stage: Pi reports exactly these (no cache).
const USAGE = {
  candidate: { input: 2000, output: 200, cache_read: 0, cache_write: 0, reasoning: 0 },
  evaluator: { input: 4000, output: 400, cache_read: 0, cache_write: 0, reasoning: 0 },
  merger: { input: 6000, output: 600, cache_read: 0, cache_write: 0, reasoning: 0 },
};

/** fusionRules() with every stage's usage fixed. */
function pricedRules() {
  const rules = fusionRules();
  for (const rule of rules) {
    const usage = USAGE[rule.name];
    if (usage) rule.responses = rule.responses.map((step) => ({ ...step, usage }));
  }
  return rules;
}

/** Pi's cost of one request of `usage` on a scripted route. */
function costOf(usage) {
  return (PRICE.input / 1e6) * usage.input + (PRICE.output / 1e6) * usage.output;
}

function assertUsage(actual, usage, requests, where) {
  assert.equal(actual.input, usage.input * requests, `${where}: input`);
  assert.equal(actual.output, usage.output * requests, `${where}: output`);
  assert.equal(actual.totalTokens, (usage.input + usage.output) * requests, `${where}: total tokens`);
  assert.ok(Math.abs(actual.cost.total - costOf(usage) * requests) < 1e-12,
    `${where}: cost ${actual.cost.total} vs ${costOf(usage) * requests}`);
}

describe("cost per role, model requests and the estimate", () => {
  test("print mode: usage and cost per role and the run total are the children's own, exactly", async () => {
    await withFusionEnv({ script: { rules: pricedRules() } }, async (env) => {
      const r = await env.print("/fusion Why is the sky blue?");
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${MERGED_TEXT}\n`);
      const dir = runDirs(env)[0];
      const details = artifactJson(dir, "result.json").details;
      const roles = details.usage_by_role;
      assert.deepEqual(roles.map((row) => [row.role, row.slot ?? null, row.model, row.attempts, row.requests]), [
        ["candidate", 1, "scripted/scripted-a", 1, 1],
        ["candidate", 2, "scripted/scripted-a", 1, 1],
        ["candidate", 3, "scripted/scripted-a", 1, 1],
        ["evaluator", null, "scripted/scripted-a", 1, 1],
        ["merger", null, "scripted/scripted-a", 1, 1],
      ]);
      for (const row of roles.slice(0, 3)) assertUsage(row.usage, USAGE.candidate, 1, `candidate ${row.slot}`);
      assertUsage(roles[3].usage, USAGE.evaluator, 1, "evaluator");
      assertUsage(roles[4].usage, USAGE.merger, 1, "merger");
      assert.equal(details.model_requests, 5);
      // The run total: 3 candidates + evaluator + merger, $0.0104 at these prices.
      const total = 3 * costOf(USAGE.candidate) + costOf(USAGE.evaluator) + costOf(USAGE.merger);
      assert.ok(Math.abs(details.usage.cost.total - total) < 1e-12, `${details.usage.cost.total} vs ${total}`);
      assert.equal(details.usage.totalTokens, 3 * 2200 + 4400 + 6600);
      // Each attempt records its requests durably.
      assert.deepEqual(manifestOf(dir).attempts.map((a) => a.requests), [1, 1, 1, 1, 1]);
      // Print mode's stderr states the total.
      assert.match(r.stderr, /^Usage: 5 model requests · 17,600 tokens · \$0\.0104$/m);
    });
  });

  test("a tool-using investigate run with one tool call per candidate makes 8 model requests", async () => {
    const candidates = candidateRules([{ tool_calls: [{ name: "read", arguments: { path: "src/app.txt" } }] }]);
    await withFixtureEnv({ script: { rules: agentFlowRules(candidates) } }, async (env) => {
      const batches = await investigateBatches(env);
      assert.ok(batches.every((b) => b.length === 1), "one tool call per candidate");
      const dir = runDirs(env)[0];
      const details = artifactJson(dir, "result.json").details;
      assert.equal(details.model_requests, 8, "3 × 2 + evaluator + merger");
      assert.deepEqual(details.usage_by_role.map((row) => row.requests), [2, 2, 2, 1, 1]);
      assert.equal(details.attempts.total, 5, "five children made those eight requests");
      // The children's requests the scripted model saw: everything but the parent agent's turns.
      const parent = new Set(["ask", "after-receipt", "wake", "after-result", "failed"]);
      assert.equal(env.requests().filter((q) => !parent.has(q.rule_name)).length, 8);
      // bg_result's text states the count beside the cost.
      const result = lastToolResult(env.requests(), "bg_result").text;
      assert.match(result, /\nUsage: 8 model requests · \d+ input, \d+ output, 0 cache read, 0 cache write tokens, \$\d+\.\d{4} \(attached to this session now\)/);
    });
  });

  test("the receipt states the estimate per stage, expected – worst case, from the budget plan and the route's prices", async () => {
    await withFusionEnv({ script: { rules: agentRules() } }, async (env) => {
      const r = await env.print("please fuse");
      assert.equal(r.code, 0, r.stderr);
      const receipt = lastToolResult(env.requests(), "fusion_reason").text;
      const plan = artifactJson(runDirs(env)[0], "budget-plan.json");
      const lines = receipt.split("\n");
      const head = lines.findIndex((l) => l.startsWith("Estimate (expected – worst case): "));
      assert.ok(head > 0, receipt);
      const group = (n) => n.toLocaleString("en-US");
      const usd = (n) => `$${n.toFixed(4)}`;
      // The scripted routes are of the unknown family (one token per byte): the expected output is
      // a quarter of the stage's cap, the expected input the known prompt and a quarter of the
      // reserved upstream answers; the worst case is the plan's forecast and the whole cap.
      const caps = { candidate: 49152, evaluation: 65536, evaluation_repair: 65536, merge: 65536 };
      let expected = { input: 0, output: 0, usd: 0 };
      let worst = { input: 0, output: 0, usd: 0 };
      plan.stages.forEach((stage, i) => {
        const input = [stage.input_tokens + Math.ceil(stage.reserved_output_contract_bytes / 4), stage.forecast_tokens];
        const output = [caps[stage.stage] / 4, caps[stage.stage]];
        const dollars = [0, 1].map((k) => (input[k] * PRICE.input + output[k] * PRICE.output) / 1e6);
        const label = stage.stage === "candidate" ? `candidate ${stage.slot}`
          : stage.stage === "evaluation_repair" ? "evaluation repair (only after an invalid evaluation)"
            : stage.stage;
        assert.equal(lines[head + 1 + i],
          `- ${label}, scripted/scripted-a: ${group(input[0])} – ${group(input[1])} input, ` +
          `${group(output[0])} – ${group(output[1])} output tokens, ${usd(dollars[0])} – ${usd(dollars[1])}`);
        if (!stage.conditional) {
          expected = { input: expected.input + input[0], output: expected.output + output[0], usd: expected.usd + dollars[0] };
        }
        worst = { input: worst.input + input[1], output: worst.output + output[1], usd: worst.usd + dollars[1] };
      });
      assert.equal(lines[head],
        `Estimate (expected – worst case): ${group(expected.input)} – ${group(worst.input)} input and ` +
        `${group(expected.output)} – ${group(worst.output)} output tokens, ${usd(expected.usd)} – ${usd(worst.usd)}.`);
      assert.match(lines.at(-1), /^Wait for the terminal notification/);
    });
  });
});
