/**
 * @file What a run costs, measured and forecast, through the real pinned Pi: usage and cost per
 * role summed from the children's own usage records (the scripted model's fixed usage priced by
 * the route's models.json prices, or the provider's own billed figure where Pi takes one), model
 * requests counted as requests (a tool-using candidate makes two), the cost estimate in the
 * launch receipt, checked against the budget plan, a subscription route's stages said to count
 * against the subscription, and the cost cap (policy.max_cost_usd) refusing a run at preflight
 * (below the run's minimum) and stopping one before the merger, with what each role spent until
 * then. The hard per-request bound itself: tests/e2e/cost_cap.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import fs from "node:fs";
import path from "node:path";
import {
  agentRules, FUSION_MODELS_V2, lookupRules, MERGED_TEXT, pricedRules, STAGE_USAGE, writeFusionModels,
} from "../../support/fusion_script.mjs";
import { artifactJson, manifestOf, piFusion, runDirs, survivingChildren, withFusionEnv } from "../../support/fusion_runs.mjs";
import { lastToolResult, regexLiteral } from "../../support/pi_harness.mjs";
import { BILLED_PROVIDER } from "../../support/scripted_model/server.mjs";
import { agentFlowRules, candidateRules, investigateBatches, withFixtureEnv } from "../investigate/investigate_support.mjs";

// The scripted routes' prices ($ per million tokens, tests/support/scripted_model/models_json.mjs).
const PRICE = { input: 0.5, output: 1.5, cacheRead: 0.05, cacheWrite: 0.625 };
// Fixed usage per stage: Pi reports exactly these (no cache).
const USAGE = STAGE_USAGE;

/** Pi's cost of one request of `usage` on a scripted route. */
function costOf(usage) {
  return (PRICE.input / 1e6) * usage.input + (PRICE.output / 1e6) * usage.output;
}

/**
 * Pi's usage object for one request of `usage` on a scripted route, computed as Pi computes it
 * (pi-ai calculateCost), so the run's records must equal it exactly.
 */
function piUsage(usage) {
  const cost = { input: (PRICE.input / 1e6) * usage.input, output: (PRICE.output / 1e6) * usage.output, cacheRead: 0, cacheWrite: 0 };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return {
    input: usage.input, output: usage.output, cacheRead: 0, cacheWrite: 0, reasoning: 0,
    totalTokens: usage.input + usage.output, cost: { ...cost, totalFromProvider: false },
  };
}

/** One usage_by_role row of a role that sent one request of `usage` on `model`. */
function roleRow(role, slot, usage, model = "scripted/scripted-a") {
  return { role, ...(slot ? { slot } : {}), model, attempts: 1, requests: 1, usage: piUsage(usage) };
}

/**
 * Fusion's model config: the default policy but `max_cost_usd`; every slot on the current model
 * unless `routes` ({candidates, evaluator, merger}) says otherwise.
 */
function writeCostCap(env, cap, routes = {}) {
  return writeFusionModels(env, {
    schema_version: FUSION_MODELS_V2,
    candidates: ["$current", "$current", "$current"],
    evaluator: "$current",
    merger: "$current",
    ...routes,
    policy: { quorum: 3, grace_seconds: null, max_cost_usd: cap },
  });
}

/**
 * The receipt's estimate Fusion must state for `plan` (budget-plan.json) at the scripted prices:
 * {head, lines}. The routes are of the unknown family (one token per byte): the expected output
 * is a quarter of the stage's cap, the expected input the known prompt and a quarter of the
 * reserved upstream answers; the worst case is the plan's forecast and the whole cap.
 * `routeOf(stage)` names a stage's route; `subscribed(stage)` marks a subscription route's.
 */
function expectedEstimate(plan, routeOf = () => "scripted/scripted-a", subscribed = () => false) {
  const group = (n) => n.toLocaleString("en-US");
  const caps = { candidate: 49152, evaluation: 65536, evaluation_repair: 65536, merge: 65536 };
  let expected = { input: 0, output: 0, usd: 0 };
  let worst = { input: 0, output: 0, usd: 0 };
  const lines = plan.stages.map((stage) => {
    const input = [stage.input_tokens + Math.ceil(stage.reserved_output_contract_bytes / 4), stage.forecast_tokens];
    const output = [caps[stage.stage] / 4, caps[stage.stage]];
    const dollars = [0, 1].map((k) => (input[k] * PRICE.input + output[k] * PRICE.output) / 1e6);
    const label = stage.stage === "candidate" ? `candidate ${stage.slot}`
      : stage.stage === "evaluation_repair" ? "evaluation repair (only after an invalid evaluation)"
        : stage.stage;
    if (!stage.conditional) {
      expected = { input: expected.input + input[0], output: expected.output + output[0], usd: expected.usd + dollars[0] };
    }
    worst = { input: worst.input + input[1], output: worst.output + output[1], usd: worst.usd + dollars[1] };
    return `- ${label}, ${routeOf(stage)}: ${group(input[0])} – ${group(input[1])} input, ` +
      `${group(output[0])} – ${group(output[1])} output tokens, ${usd(dollars[0])} – ${usd(dollars[1])}` +
      (subscribed(stage) ? " at catalog prices, counted against the subscription" : "");
  });
  const head = `Estimate (expected – worst case): ${group(expected.input)} – ${group(worst.input)} input and ` +
    `${group(expected.output)} – ${group(worst.output)} output tokens, ${usd(expected.usd)} – ${usd(worst.usd)}. ` +
    SHARE_OF_CAP +
    (plan.stages.some(subscribed) ? " Stages on a subscription route are counted against the subscription, not billed per token." : "");
  return { head, lines, usd: { expected: expected.usd, worst: worst.usd } };
}

/** $ with four decimals, as Fusion prints dollars. */
const usd = (n) => `$${n.toFixed(4)}`;

/** The receipt's basis sentence before this project has three earlier runs on the routes. */
const SHARE_OF_CAP = "Expected: a quarter of each output cap (this project has fewer than 3 earlier runs on these routes to learn from).";
/** What a completed run's usage line adds: the estimate beside the bill (any figures). */
const ESTIMATE_BESIDE = String.raw` · estimated \$\d+\.\d{4} expected \(a quarter of each output cap\), \$\d+\.\d{4} worst case`;

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
      // The /fusion notice stated the estimate before the run, as the receipt does, and the
      // usage line states the bill beside it.
      const plan = artifactJson(dir, "budget-plan.json");
      const expected = expectedEstimate(plan);
      assert.ok(r.stderr.split("\n").includes(`Usage: 5 model requests · 17,600 tokens · $0.0104 · estimated ${usd(expected.usd.expected)} expected (a quarter of each output cap), ${usd(expected.usd.worst)} worst case`), r.stderr);
      assert.deepEqual(details.estimate, {
        expected_usd: details.estimate.expected_usd, worst_case_usd: details.estimate.worst_case_usd,
        expected_basis: "share_of_cap", unpriced_stages: 0,
      });
      assert.ok(Math.abs(details.estimate.expected_usd - expected.usd.expected) < 1e-9);
      const notice = r.stderr.split("\n");
      const started = notice.findIndex((l) => l.startsWith(`Started fusion reason (${path.basename(dir)})… Artifacts: `));
      assert.ok(started >= 0, r.stderr);
      // The one-model warning (all three candidates on scripted-a) comes before the estimate.
      assert.match(notice[started + 1], /^All three candidates run on one model \(scripted\/scripted-a\)/);
      assert.deepEqual(notice.slice(started + 2, started + 3 + plan.stages.length), [expected.head, ...expected.lines]);
    });
  });

  // Four runs in one project: the fourth's expected figures are what the first three used.
  test("after three runs the estimate is what earlier runs on the same routes used, within 2× of the bill, and said so", async () => {
    await withFusionEnv({ script: { rules: pricedRules() } }, async (env) => {
      const bills = [];
      for (let i = 0; i < 4; ++i) {
        const r = await env.print(`/fusion Why is the sky blue? (${i})`);
        assert.equal(r.code, 0, r.stderr);
        const dir = runDirs(env).find((d) => !bills.some((b) => b.dir === d));
        bills.push({ dir, r, details: artifactJson(dir, "result.json").details });
      }
      // The first three had nothing (or too little) to learn from.
      for (const { details } of bills.slice(0, 3)) assert.equal(details.estimate.expected_basis, "share_of_cap");
      const last = bills[3];
      assert.equal(last.details.estimate.expected_basis, "earlier_runs");
      assert.match(last.r.stderr, /Expected: what each role used in this project's earlier runs on the same routes \(the median\)\./);
      assert.match(last.r.stderr, /^- candidate 1, scripted\/scripted-a: .* \(expected: the median of 3 earlier runs\), /m);
      assert.match(last.r.stderr, /^- merge, scripted\/scripted-a: .* \(expected: the median of 3 earlier runs\), /m);
      const bill = last.details.usage.cost.total;
      const expected = last.details.estimate.expected_usd;
      assert.ok(expected <= 2 * bill && bill <= 2 * expected, `expected ${expected} vs bill ${bill}`);
      // The share-of-cap figure the first run stated was far from its bill: the point of learning.
      assert.ok(bills[0].details.estimate.expected_usd > 2 * bills[0].details.usage.cost.total);
      // The bill beside the estimate: print mode's stderr and pi-fusion runs --json.
      assert.ok(last.r.stderr.split("\n").includes(`Usage: 5 model requests · 17,600 tokens · ${usd(bill)} · estimated ${usd(expected)} expected (from earlier runs), ${usd(last.details.estimate.worst_case_usd)} worst case`), last.r.stderr);
      const listed = JSON.parse(piFusion(env.cwd, "runs", "--json").stdout);
      const row = listed.find((x) => x.run_id === path.basename(last.dir));
      assert.deepEqual(row.estimate, last.details.estimate);
      assert.ok(Math.abs(row.cost_usd - bill) < 1e-12);
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
      const expected = expectedEstimate(plan);
      assert.deepEqual(lines.slice(head, head + 1 + plan.stages.length), [expected.head, ...expected.lines]);
      assert.match(lines.at(-1), /^Wait for the terminal notification/);
    });
  });

  // One env, two runs: the refusal states the run's minimum, and the second run's cap is set
  // above it, so the test reads the planner's figure instead of repeating its arithmetic.
  test("a cost cap below the run's minimum refuses with zero children; one crossed after the evaluation stops before the merger, stating the spend", async () => {
    // The evaluator reports a spend far above what its request could cost (400,000 output tokens
    // past its output limit, which no real provider does): the measured spend passes the cap,
    // and the merge is not started. The candidates stay cheap.
    const evaluator = { ...USAGE.evaluator, output: 400000 };
    await withFusionEnv({ script: { rules: pricedRules({ ...USAGE, evaluator }) } }, async (env) => {
      const configPath = writeCostCap(env, 0.001);
      const refused = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(refused.code, 0);
      const stated = /Fusion failed \(stage=preflight, slot=none, attempt=none\): the cost cap of \$0\.0010 \(policy\.max_cost_usd\) cannot pay for the run's minimum, \$(\d+\.\d{4}): each stage's first model request with its known prompt at one token per byte and a 1,024-token answer; no child was started\. Raise or clear the cap with \/fusion-models, or choose cheaper routes\. Fusion's model config: (.+)\.$/m.exec(refused.stderr);
      assert.ok(stated, refused.stderr);
      assert.equal(stated[2], configPath);
      assert.match(refused.stderr, /cost_cap_exceeded/);
      assert.equal(env.requests().length, 0, "no model request");
      const [refusedDir] = runDirs(env);
      const refusedManifest = manifestOf(refusedDir);
      assert.equal(refusedManifest.state, "failed");
      assert.equal(refusedManifest.error.code, "cost_cap_exceeded");
      assert.deepEqual(refusedManifest.attempts, [], "no child started");
      assert.equal(refusedManifest.warm_children, undefined, "no warm child either");
      const refusedSummary = artifactJson(refusedDir, "failure-summary.json");
      assert.equal(refusedSummary.classifications.failure_class, "cost");
      assert.deepEqual(refusedSummary.remediation_ids, ["raise_or_clear_cost_cap", "choose_cheaper_routes"]);

      // Above the minimum at preflight, with room for the evaluator's request; past it once the
      // evaluator's spend is measured.
      const minimum = Number(stated[1]);
      const cap = Number((minimum + 0.05).toFixed(4));
      const spent = 3 * costOf(USAGE.candidate) + costOf(evaluator);
      assert.ok(spent > cap, `the evaluator's spend ${spent} must pass the cap ${cap}`);
      writeCostCap(env, cap);
      const r = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(r.code, 0);
      const dir = runDirs(env).find((d) => d !== refusedDir);
      const stopped = new RegExp(
        `^Fusion failed \\(stage=merge, slot=none, attempt=none\\): cost_cap_exceeded: the cost cap of ${regexLiteral(usd(cap))} ` +
        `\\(policy\\.max_cost_usd\\) stopped the run before the merge: ${regexLiteral(usd(spent))} spent so far leaves ` +
        `\\$0\\.0000 for it, less than its first model request needs at the least: \\$(\\d+\\.\\d{4}) for its [\\d,]+-byte ` +
        `prompt at one token per byte and a 1,024-token answer\\. 3 verified candidate answers ` +
        `and the evaluation are kept in ${regexLiteral(dir)}; raise or clear policy\\.max_cost_usd with /fusion-models, ` +
        `then resume the run with /fusion-resume ${regexLiteral(path.basename(dir))}, which reuses them\\.$`,
        "m").exec(r.stderr);
      assert.ok(stopped, r.stderr);
      // The person's notice (a /fusion run in print mode) ends saying how to resume the run.
      const short = path.basename(dir).slice("reason-".length, "reason-".length + 8);
      assert.match(r.stderr, new RegExp(`^Resumable: /fusion-resume ${short} runs only what is missing, ` +
        `reusing its 3 verified candidate answers and its evaluation\\.$`, "m"));
      assert.ok(Number(stopped[1]) > 0, "the merge's first request is counted");
      // The evaluation ran; the merger never sent a request.
      const stages = env.requests().map((q) => q.rule_name).sort();
      assert.deepEqual(stages, ["candidate", "candidate", "candidate", "evaluator"]);
      const manifest = manifestOf(dir);
      assert.equal(manifest.state, "failed");
      assert.deepEqual([manifest.error.code, manifest.error.stage], ["cost_cap_exceeded", "merge"]);
      assert.deepEqual(manifest.attempts.map((a) => [a.stage, a.state]), [
        ["candidate", "completed"], ["candidate", "completed"], ["candidate", "completed"], ["evaluation", "completed"],
      ]);
      assert.ok(fs.existsSync(path.join(dir, "evaluation.json")));
      assert.ok(Math.abs(manifest.usage.cost.total - spent) < 1e-12, `${manifest.usage.cost.total} vs ${spent}`);
      const summary = artifactJson(dir, "failure-summary.json");
      assert.equal(summary.progress.merge.not_started, 1);
      // What each role spent before the stop: the candidates and the evaluator, no merger row.
      const spentRows = [1, 2, 3].map((slot) => roleRow("candidate", slot, USAGE.candidate))
        .concat(roleRow("evaluator", null, evaluator));
      assert.deepEqual(summary.usage_by_role, spentRows);
      assert.equal(summary.model_requests, 4);
      assert.deepEqual(survivingChildren(env), []);

      // bg_result on the stopped run, from a later Pi: the same rows in its details, and its text
      // says what the run used.
      env.server.setScript({ rules: lookupRules(path.basename(dir)) });
      const later = await env.json("get it");
      assert.equal(later.code, 0, later.stderr);
      const retrieved = later.events.find((e) => e.type === "tool_execution_end" && e.toolName === "bg_result");
      assert.ok(retrieved, "bg_result ran");
      assert.equal(retrieved.result.details.state, "failed");
      assert.deepEqual(retrieved.result.details.usage_by_role, spentRows);
      assert.equal(retrieved.result.details.model_requests, 4);
      const input = 3 * USAGE.candidate.input + evaluator.input;
      const output = 3 * USAGE.candidate.output + evaluator.output;
      assert.match(retrieved.result.content[0].text, new RegExp(`^Usage so far: 4 model requests · ${input} input, ` +
        `${output} output, 0 cache read, 0 cache write tokens, ${regexLiteral(usd(spent))}\\.$`, "m"));
    });
  });

  test("a subscription route: the receipt says its stages count against the subscription, the cap counts them at catalog prices", async () => {
    // kimi-coding is one of Pi's subscription providers (its OAuth login isSubscription) and not a
    // frontier one. Pointed at the scripted model with a stored OAuth login, candidate 2's route
    // is a subscription as Pi reports it: isUsingOAuth and getProvider().auth.oauth.isSubscription.
    const SUBSCRIPTION = "kimi-coding/scripted-k";
    await withFusionEnv({ script: { rules: agentRules() } }, async (env) => {
      const models = env.server.modelsJson();
      models.providers["kimi-coding"] = {
        baseUrl: env.server.baseUrl("openai-completions"),
        models: [{ id: "scripted-k", name: "Scripted K", input: ["text"], cost: { ...PRICE }, reasoning: true, contextWindow: 128000, maxTokens: 16384 }],
      };
      env.writeAgentFile("models.json", JSON.stringify(models));
      const access = "scripted-oauth-access";
      env.writeAgentFile("auth.json", JSON.stringify({
        "kimi-coding": { type: "oauth", access, refresh: "scripted-oauth-refresh", expires: Date.now() + 24 * 3600 * 1000 },
      }));
      const routes = { candidates: ["$current", SUBSCRIPTION, "$current"] };
      writeCostCap(env, null, routes);
      const r = await env.print("please fuse");
      assert.equal(r.code, 0, r.stderr);
      // Candidate 2 ran on the subscription login: its request carried the OAuth access token.
      const candidates = env.requests().filter((q) => q.rule_name === "candidate");
      assert.deepEqual(candidates.map((q) => [q.model, q.headers.authorization]).sort(), [
        ["scripted-a", "Bearer scripted-key"], ["scripted-a", "Bearer scripted-key"], ["scripted-k", `Bearer ${access}`],
      ]);

      const receipt = lastToolResult(env.requests(), "fusion_reason").text;
      const plan = artifactJson(runDirs(env)[0], "budget-plan.json");
      const lines = receipt.split("\n");
      const head = lines.findIndex((l) => l.startsWith("Estimate (expected – worst case): "));
      assert.ok(head > 0, receipt);
      const onSubscription = (stage) => stage.stage === "candidate" && stage.slot === 2;
      const expected = expectedEstimate(plan, (stage) => (onSubscription(stage) ? SUBSCRIPTION : "scripted/scripted-a"), onSubscription);
      assert.deepEqual(lines.slice(head, head + 1 + plan.stages.length), [expected.head, ...expected.lines]);
      assert.ok(expected.head.endsWith(" Stages on a subscription route are counted against the subscription, not billed per token."));
      assert.ok(expected.lines[1].endsWith(" at catalog prices, counted against the subscription"));

      // The cap refuses at the catalog prices, and says it counts the subscription route so.
      writeCostCap(env, 0.001, routes);
      const refused = await env.print("/fusion Why is the sky blue?");
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /the cost cap of \$0\.0010 \(policy\.max_cost_usd\) cannot pay for the run's minimum, \$\d+\.\d{4}: each stage's first model request with its known prompt at one token per byte and a 1,024-token answer; no child was started\. Subscription routes count at their catalog prices\. Raise or clear the cap with \/fusion-models, or choose cheaper routes\./);
    });
  });

  test("a provider that bills its own cost: each role's cost and the run's total are the provider's figures", async () => {
    // Candidate 2 stays on a provider Pi prices from the catalog; every other slot bills its own
    // cost, which the scripted model sets far from the catalog's.
    const BILLED = `${BILLED_PROVIDER}/scripted-a`;
    const billed = { candidate: 0.01, evaluator: 0.02, merger: 0.03 };
    const extra = Object.fromEntries(Object.entries(billed).map(([stage, cost]) => [stage, { provider_cost: cost }]));
    await withFusionEnv({ script: { rules: pricedRules(USAGE, extra) } }, async (env) => {
      env.writeAgentFile("models.json", JSON.stringify(env.server.modelsJson({ billed: true })));
      const withProviderCost = (usage, total) => ({ ...usage, cost: { ...usage.cost, total, totalFromProvider: true } });
      const rowsOf = (dir) => artifactJson(dir, "result.json").details.usage_by_role;

      writeCostCap(env, null, { candidates: [BILLED, "$current", BILLED], evaluator: BILLED, merger: BILLED });
      const mixed = await env.print("/fusion Why is the sky blue?");
      assert.equal(mixed.code, 0, mixed.stderr);
      const [mixedDir] = runDirs(env);
      assert.deepEqual(rowsOf(mixedDir), [
        { ...roleRow("candidate", 1, USAGE.candidate, BILLED), usage: withProviderCost(piUsage(USAGE.candidate), billed.candidate) },
        roleRow("candidate", 2, USAGE.candidate),
        { ...roleRow("candidate", 3, USAGE.candidate, BILLED), usage: withProviderCost(piUsage(USAGE.candidate), billed.candidate) },
        { ...roleRow("evaluator", null, USAGE.evaluator, BILLED), usage: withProviderCost(piUsage(USAGE.evaluator), billed.evaluator) },
        { ...roleRow("merger", null, USAGE.merger, BILLED), usage: withProviderCost(piUsage(USAGE.merger), billed.merger) },
      ]);
      // The total sums the figures; it is the provider's only when every part was.
      const mixedTotal = 2 * billed.candidate + costOf(USAGE.candidate) + billed.evaluator + billed.merger;
      const mixedUsage = artifactJson(mixedDir, "result.json").details.usage;
      assert.ok(Math.abs(mixedUsage.cost.total - mixedTotal) < 1e-12, `${mixedUsage.cost.total} vs ${mixedTotal}`);
      assert.equal(mixedUsage.cost.totalFromProvider, false);
      assert.match(mixed.stderr, new RegExp(`^Usage: 5 model requests · 17,600 tokens · ${regexLiteral(usd(mixedTotal))}${ESTIMATE_BESIDE}$`, "m"));

      writeCostCap(env, null, { candidates: [BILLED, BILLED, BILLED], evaluator: BILLED, merger: BILLED });
      const all = await env.print("/fusion Why is the sky blue?");
      assert.equal(all.code, 0, all.stderr);
      const allDir = runDirs(env).find((d) => d !== mixedDir);
      assert.deepEqual(rowsOf(allDir).map((row) => [row.model, row.usage.cost.total, row.usage.cost.totalFromProvider]), [
        [BILLED, billed.candidate, true], [BILLED, billed.candidate, true], [BILLED, billed.candidate, true],
        [BILLED, billed.evaluator, true], [BILLED, billed.merger, true],
      ]);
      const allTotal = 3 * billed.candidate + billed.evaluator + billed.merger;
      const allUsage = artifactJson(allDir, "result.json").details.usage;
      assert.ok(Math.abs(allUsage.cost.total - allTotal) < 1e-12, `${allUsage.cost.total} vs ${allTotal}`);
      assert.equal(allUsage.cost.totalFromProvider, true);
      assert.match(all.stderr, new RegExp(`^Usage: 5 model requests · 17,600 tokens · ${regexLiteral(usd(allTotal))}${ESTIMATE_BESIDE}$`, "m"));
    });
  });
});
