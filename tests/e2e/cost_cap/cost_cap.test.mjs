/**
 * @file The hard cost cap through the real pinned Pi: investigate candidates on three apis
 * (openai-completions, anthropic-messages, openai-responses) make 100+ tool calls each, priced
 * by the scripted routes' models.json prices and Pi's own usage (the scripted model counts a
 * request's input as its body's bytes / 4, a truthful provider's count). Uncapped, the run spends
 * far more than the cap the capped runs get, which lies above the receipt's estimate: there the
 * manifest's usage total never passes the cap, the third candidate is stopped by its share with
 * a typed error at the candidate stage while the two verified answers are kept (quorum 3: the run
 * fails, resumable; quorum 2: it answers degraded from the two), every child got its allowance in
 * its environment and the evaluator and merger started cold. A capped run on a route without
 * prices is refused at preflight, naming the slot.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import {
  agentRules, EVALUATION_AB, fusionRules, STAGE, writeFusionModelsV2,
} from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, runDirs, survivingChildren } from "../../support/fusion_runs.mjs";
import { lastToolResult } from "../../support/pi_harness.mjs";
import { INVESTIGATE_ARGS, withFixtureEnv } from "../investigate/investigate_support.mjs";

// The scripted routes' prices ($ per million tokens): the highest input price is the cache write.
const PRICE = { input: 0.5, output: 1.5, cacheRead: 0.05, cacheWrite: 0.625 };
const MODEL_MAX_TOKENS = 16384;
const ROUTES = {
  candidates: ["scripted/scripted-a", "scripted-ant/scripted-a", "scripted-resp/scripted-a"],
  evaluator: "scripted/scripted-a",
  merger: "scripted/scripted-a",
};
const APIS = ["openai-completions", "anthropic-messages", "openai-responses"];
// Twelve reads a turn: candidates 1 and 2 answer after 9 turns (108 tool calls), candidate 3
// after 40 (480) when nothing stops it.
const BATCH = { tool_calls: Array.from({ length: 12 }, () => ({ name: "read", arguments: { path: "src/app.txt" } })) };
const TURNS = [9, 9, 40];

function candidateRules() {
  return APIS.map((api, i) => ({
    name: `candidate-${i + 1}`,
    match: { ...STAGE.candidate, api },
    responses: [...Array(TURNS[i]).fill(BATCH), { text: `Candidate ${i + 1}: the app answers FORTY-TWO.` }],
  }));
}

/**
 * The agent's side of an investigate launch with the candidates above; `twoCandidates`: the
 * evaluator (and its repair) judge A and B only, as in a run that answers from two.
 */
function runRules(twoCandidates = false) {
  const evaluation = [{ text: JSON.stringify(EVALUATION_AB) }];
  const stages = fusionRules(twoCandidates ? { evaluator: evaluation, repair: evaluation } : {})
    .filter((rule) => rule.name !== "candidate");
  return agentRules({
    workflow: "investigate", args: INVESTIGATE_ARGS, ask: "please investigate", final: "DONE",
    failedReply: "noted", stages: [...stages, ...candidateRules()],
  });
}

/** A wrapper every child command runs through, logging "<epoch ms> <role> <allowance>" per start. */
function writeWrapper(env) {
  const log = path.join(env.root, "starts.log");
  const wrapper = path.join(env.root, "wrapper.sh");
  fs.writeFileSync(wrapper, [
    "#!/bin/sh",
    `echo "$(date +%s%3N) $PI_FUSION_CHILD_ROLE \${PI_FUSION_COST_ALLOWANCE_USD:-none}" >> '${log}'`,
    'exec "$@"',
    "",
  ].join("\n"), { mode: 0o755 });
  const starts = () => fs.readFileSync(log, "utf8").trim().split("\n").map((l) => {
    const [ms, role, allowance] = l.split(" ");
    return { ms: Number(ms), role, allowance };
  });
  return { wrapper, reset: () => fs.rmSync(log, { force: true }), starts };
}

/** The requests candidate `slot` sent, in order, among `requests`. */
const candidateRequests = (requests, slot) => requests.filter((q) => q.rule_name === `candidate-${slot}`);

/** Tool calls candidate `slot` made: the tool results its requests carried back. */
function toolCalls(requests, slot) {
  return candidateRequests(requests, slot).reduce((n, q) => n + (q.last_role === "tool" ? q.tool_results.length : 0), 0);
}

/** What the child's admission counts as a request's input: its payload's bytes and 64 more. */
const inputTokens = (q) => Buffer.byteLength(JSON.stringify(q.body)) + 64;
const worstCase = (q, output) => (inputTokens(q) * PRICE.cacheWrite + output * PRICE.output) / 1e6;
const costOf = (q) => (q.response.usage.input * PRICE.input + q.response.usage.output * PRICE.output) / 1e6;

/**
 * The allowance candidate `slot` needs to answer with every request sent as Pi made it: at each
 * request, what it spent before plus the request's worst case.
 */
function allowanceToFinish(requests) {
  let spent = 0;
  let needed = 0;
  for (const q of requests) {
    needed = Math.max(needed, spent + worstCase(q, MODEL_MAX_TOKENS));
    spent += costOf(q);
  }
  return needed;
}

/** The output limit a request carried, whichever api's field holds it. */
function outputLimit(q) {
  return q.body.max_tokens ?? q.body.max_completion_tokens ?? q.body.max_output_tokens ?? null;
}

const usd = (n) => `$${n.toFixed(4)}`;

describe("the hard cost cap", () => {
  test("candidates with 100+ tool calls: uncapped spend far past the cap; capped, never past it", async () => {
    await withFixtureEnv({ script: { rules: [] } }, async (env) => {
      const { wrapper, reset, starts } = writeWrapper(env);
      const run = async (policy) => {
        env.server.setScript({ rules: runRules(policy.quorum === 2) });
        reset();
        writeFusionModelsV2(env, ROUTES, policy);
        const before = new Set(runDirs(env));
        const from = env.requests().length;
        const r = await env.print("please investigate", { env: { PI_FUSION_CHILD_WRAPPER: wrapper } });
        const dir = runDirs(env).find((d) => !before.has(d));
        return { r, dir, manifest: manifestOf(dir), requests: env.requests().slice(from) };
      };

      // Uncapped: every candidate answers; candidate 3 after 480 tool calls.
      const uncapped = await run({});
      assert.equal(uncapped.manifest.state, "completed", uncapped.r.stderr);
      assert.deepEqual([1, 2, 3].map((slot) => toolCalls(uncapped.requests, slot)), [108, 108, 480]);
      const spentUncapped = uncapped.manifest.usage.cost.total;
      // Every candidate child got no allowance: a run without a cap is as before.
      assert.ok(starts().every((s) => s.allowance === "none"), JSON.stringify(starts()));
      const receipt = lastToolResult(uncapped.requests, "fusion_investigate").text;
      const estimate = Number(/^Estimate \(expected – worst case\): .*, \$(\d+\.\d{4}) – \$/m.exec(receipt)[1]);

      // The cap: room for candidates 1 and 2 to answer as they did, with a margin, for all three
      // shares, and the later stages' minimum (a few cents here) on top.
      const needed = Math.max(...[1, 2].map((slot) => allowanceToFinish(candidateRequests(uncapped.requests, slot))));
      const cap = Number((3 * needed * 1.1 + 0.05).toFixed(4));
      assert.ok(estimate < cap, `the cap ${cap} lies above the estimate ${estimate}`);
      assert.ok(cap < spentUncapped, `the cap ${cap} lies below the uncapped spend ${spentUncapped}`);

      // Quorum 3: candidate 3 is stopped by its share; the run fails at the candidate stage.
      const stopped = await run({ max_cost_usd: cap });
      const m = stopped.manifest;
      assert.equal(m.state, "failed", stopped.r.stderr);
      assert.ok(m.usage.cost.total <= cap, `spent ${m.usage.cost.total} of a ${cap} cap`);
      assert.deepEqual([m.error.code, m.error.stage, m.error.slot], ["cost_cap_exceeded", "candidate", 3]);
      assert.match(m.error.message, /^child runtime guard refused before_provider_request \(request \d+, tool call \d+\) on scripted-resp\/scripted-a: the cost cap stopped a model request of [\d,]+ input tokens \(its payload's bytes\) before it was sent: \$\d+\.\d{4} left of the child's allowance, and that pays for only [\d,]+ output tokens, below the useful floor of 1,024\. 2 verified candidate answers are kept in /);
      assert.ok(m.error.message.endsWith(`then resume the run with /fusion-resume ${m.run_id}, which reuses them.`), m.error.message);
      const calls = toolCalls(stopped.requests, 3);
      assert.ok(calls >= 100 && calls < 480, `candidate 3 made ${calls} tool calls before the cap stopped it`);
      // The manifest lists attempts as they started; the order among candidates is not fixed.
      assert.deepEqual(m.attempts.map((a) => [a.stage, a.slot, a.state]).sort((x, y) => x[1] - y[1]), [
        ["candidate", 1, "completed"], ["candidate", 2, "completed"], ["candidate", 3, "failed"],
      ]);
      for (const slot of [1, 2]) assert.ok(fs.existsSync(path.join(stopped.dir, `candidate-${slot}.attempt-1.response.md`)));
      // Its last requests went out with the output limit lowered to what its share paid for.
      const last = candidateRequests(stopped.requests, 3).at(-1);
      assert.ok(outputLimit(last) >= 1024 && outputLimit(last) < MODEL_MAX_TOKENS, JSON.stringify(outputLimit(last)));
      // Each candidate got the same share in its environment, and the shares fit the cap.
      const shares = starts().filter((s) => s.role === "candidate").map((s) => Number(s.allowance));
      assert.equal(shares.length, 3);
      assert.ok(shares.every((a) => a === shares[0] && a > needed && 3 * a <= cap), JSON.stringify(shares));
      const summary = artifactJson(stopped.dir, "failure-summary.json");
      assert.equal(summary.classifications.failure_class, "cost");
      assert.deepEqual(survivingChildren(env), []);

      // Quorum 2: candidate 3 is a failed candidate; the run answers degraded from 1 and 2.
      const degraded = await run({ max_cost_usd: cap, quorum: 2 });
      const d = degraded.manifest;
      assert.equal(d.state, "completed", degraded.r.stderr);
      assert.ok(d.usage.cost.total <= cap, `spent ${d.usage.cost.total} of a ${cap} cap`);
      assert.deepEqual([d.degraded.slot, d.degraded.reason, d.degraded.code], [3, "failed", "cost_cap_exceeded"]);
      assert.ok(artifactJson(degraded.dir, "result.json").details.degraded);
      // The evaluator and the merger started cold, after the candidates, each with what the cap
      // left when its stage began.
      const s = starts();
      const lastCandidate = Math.max(...degraded.requests.filter((q) => /^candidate-/.test(q.rule_name)).map((q) => Date.parse(q.time)));
      for (const role of ["evaluator", "merger"]) {
        const start = s.find((x) => x.role === role);
        assert.ok(start, role);
        assert.ok(start.ms >= lastCandidate, `${role} started cold`);
        assert.ok(Number(start.allowance) > 0 && Number(start.allowance) <= cap, `${role}: ${start.allowance}`);
      }
      assert.equal(d.warm_children, undefined);
      assert.deepEqual(survivingChildren(env), []);
      console.log(`estimate ${usd(estimate)} · cap ${usd(cap)} · uncapped ${usd(spentUncapped)} · capped ${usd(m.usage.cost.total)} / ${usd(d.usage.cost.total)}`);
    });
  });

  test("a capped run on a route without prices is refused at preflight, naming the slot", async () => {
    await withFixtureEnv({ script: { rules: runRules() } }, async (env) => {
      const models = env.server.modelsJson();
      // Pi accepts any number as a price; a negative one prices nothing Fusion can trust.
      const unpriced = { ...models.providers["scripted-resp"].models[0], id: "scripted-free" };
      unpriced.cost = { ...unpriced.cost, input: -1 };
      models.providers["scripted-free"] = { ...models.providers["scripted-resp"], models: [unpriced] };
      env.writeAgentFile("models.json", JSON.stringify(models));
      writeFusionModelsV2(env, { ...ROUTES, candidates: [ROUTES.candidates[0], ROUTES.candidates[1], "scripted-free/scripted-free"] }, { max_cost_usd: 5 });
      const r = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Fusion failed \(stage=preflight, slot=3, attempt=none\): the cost cap of \$5\.0000 \(policy\.max_cost_usd\) cannot bound the Candidate 3 slot's route scripted-free\/scripted-free: Pi gives no prices for it, so no request on it can be admitted against the cap; no child was started\. Choose a priced route for that slot, or clear the cap, with \/fusion-models\./);
      const [dir] = runDirs(env);
      const manifest = manifestOf(dir);
      assert.deepEqual([manifest.state, manifest.error.code, manifest.attempts.length], ["failed", "cost_cap_exceeded", 0]);
      assert.equal(env.requests().length, 0, "no model request");
    });
  });
});
