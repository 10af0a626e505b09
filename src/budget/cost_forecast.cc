#include "budget/cost_forecast.h"

#include <algorithm>

#include "core/limits.h"

namespace pi_fusion::budget {
namespace {

constexpr double kTokensPerPriceUnit = 1'000'000.0;

int Order(Role stage) {
  switch (stage) {
    case Role::kCandidate:
      return 0;
    case Role::kEvaluator:
      return 1;
    case Role::kRepair:
      return 2;
    case Role::kMerger:
      break;
  }
  return 3;
}

// `bytes` scaled by the expected share, then counted at `rate_x100` bytes per token x 100.
int64_t ExpectedTokens(int64_t bytes, int64_t rate_x100) {
  const int64_t share = (bytes * kExpectedOutputShareX10000 + kFractionScale - 1) / kFractionScale;
  return TokensAtRate(share, rate_x100);
}

double Dollars(int64_t input_tokens, int64_t output_tokens, const TokenPrices& prices) {
  return (static_cast<double>(input_tokens) * prices.input +
          static_cast<double>(output_tokens) * prices.output) /
         kTokensPerPriceUnit;
}

}  // namespace

WorstCasePrices WorstPricesOf(const TokenPrices& prices) {
  return {std::max({prices.input, prices.cache_read, prices.cache_write}), prices.output};
}

double StageMinimumUsd(int64_t prompt_bytes, const TokenPrices& prices) {
  return WorstCaseUsd(prompt_bytes, kMinUsefulOutputTokens, WorstPricesOf(prices));
}

int64_t StageOutputCapBytes(Role stage) {
  switch (stage) {
    case Role::kCandidate:
      return static_cast<int64_t>(kCandidateOutputMaxBytes);
    case Role::kEvaluator:
    case Role::kRepair:
      return static_cast<int64_t>(kEvaluatorOutputMaxBytes);
    case Role::kMerger:
      break;
  }
  return static_cast<int64_t>(kMergerOutputMaxBytes);
}

namespace {

void Price(StageCost& cost, const RoutePricing& pricing, int64_t known_prompt_bytes) {
  cost.subscription = pricing.subscription;
  if (!pricing.prices) return;
  const TokenPrices& prices = *pricing.prices;
  cost.usd = UsdRange{Dollars(cost.input.expected, cost.output.expected, prices),
                      Dollars(cost.input.worst, cost.output.worst, prices)};
  cost.prices = prices;
  cost.minimum_usd = StageMinimumUsd(known_prompt_bytes, prices) * cost.calls;
}

void Add(CostForecast& out, const StageCost& cost) {
  if (!cost.conditional) {
    out.input.expected += cost.input.expected;
    out.output.expected += cost.output.expected;
    if (cost.usd) out.usd.expected += cost.usd->expected;
    if (cost.minimum_usd) out.minimum_usd += *cost.minimum_usd;
  }
  out.input.worst += cost.input.worst;
  out.output.worst += cost.output.worst;
  if (cost.usd) out.usd.worst += cost.usd->worst;
  if (!cost.usd) ++out.unpriced_stages;
  if (cost.subscription) ++out.subscription_stages;
  out.stages.push_back(cost);
}

// A policy check on the evaluator's route, from the plan's evaluation stage: the same known
// prompt (the check's own system prompt is of the evaluator's size), `reserve` bytes of answers
// read, `calls` requests.
StageCost CheckCost(const StageForecast& evaluation, Stage check, int64_t reserve, int calls,
                    int64_t rate, const RoutePricing& pricing) {
  StageCost cost;
  cost.stage = Role::kEvaluator;
  cost.check = check;
  cost.calls = calls;
  cost.route = evaluation.route;
  cost.conditional = check == Stage::kOrderCheck;
  cost.input = {calls * (evaluation.input_tokens + ExpectedTokens(reserve, rate)),
                calls * (evaluation.input_tokens + reserve)};
  const int64_t cap = StageOutputCapBytes(Role::kEvaluator);
  cost.output = {calls * TokensAtRate(kCheckExpectedOutputBytes, rate), calls * cap};
  Price(cost, pricing, evaluation.estimate.bytes.known());
  return cost;
}

}  // namespace

CostForecast ForecastCost(const BudgetPlan& plan, const std::array<RoutePricing, 5>& pricing,
                          const ObservedRoles& observed, const JudgeChecks& checks) {
  CostForecast out;
  const StageForecast* evaluation = nullptr;
  for (const StageForecast& stage : plan.stages) {
    const size_t route = static_cast<size_t>(stage.route);
    const int64_t rate = ConfiguredRateX100(plan.routes[route].family);
    StageCost cost;
    cost.stage = stage.stage;
    cost.slot = stage.slot;
    cost.route = stage.route;
    // An adaptive run asks candidate 3 only when candidates 1 and 2 disagree.
    cost.conditional = stage.conditional || (checks.adaptive && stage.slot == 3);
    cost.input = {stage.input_tokens + ExpectedTokens(stage.reserved_output_contract_bytes, rate),
                  stage.estimate.tokens};
    const int64_t cap = StageOutputCapBytes(stage.stage);
    cost.output = {ExpectedTokens(cap, rate), cap};
    if (const std::optional<ObservedTokens>& seen = observed[route]; seen && !stage.conditional) {
      // Earlier runs' median as it was, even above the worst case: a tool-using candidate's
      // turns, which the worst case does not count, are in it.
      cost.input.expected = seen->input;
      cost.output.expected = seen->output;
      cost.from_history = true;
      cost.history_runs = seen->runs;
      ++out.history_stages;
    }
    Price(cost, pricing[route], stage.estimate.bytes.known());
    Add(out, cost);
    if (stage.stage == Role::kEvaluator) evaluation = &stage;
  }
  if (evaluation == nullptr) return out;
  const size_t route = static_cast<size_t>(evaluation->route);
  const int64_t rate = ConfiguredRateX100(plan.routes[route].family);
  const auto candidate_cap = static_cast<int64_t>(kCandidateOutputMaxBytes);
  if (checks.adaptive) {
    Add(out, CheckCost(*evaluation, Stage::kAgreement, 2 * candidate_cap, 1, rate, pricing[route]));
  }
  if (checks.order_check) {
    // The candidates and the conflicts, which the evaluation's answer bounds.
    const int64_t reserve =
        evaluation->reserved_output_contract_bytes + static_cast<int64_t>(kEvaluatorOutputMaxBytes);
    Add(out, CheckCost(*evaluation, Stage::kOrderCheck, reserve, kOrderCheckCalls, rate,
                       pricing[route]));
  }
  return out;
}

double ExpectedCostFrom(const CostForecast& forecast, Role next) {
  double total = 0;
  for (const StageCost& stage : forecast.stages) {
    if (Order(stage.stage) < Order(next) || !stage.usd) continue;
    if (stage.conditional && stage.stage != next) continue;
    total += stage.usd->expected;
  }
  return total;
}

}  // namespace pi_fusion::budget
