// The cost estimate as people and the agent read it (the launch receipt, the /fusion notice) and
// as the launch details carry it. Texts only; the numbers are ForecastCost's (cost_forecast.h).
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "budget/cost_forecast.h"
#include "budget/planner.h"

namespace pi_fusion::budget {

// 0.0123 -> "$0.0123" (four decimals, as the usage lines print cost).
std::string FormatUsd(double usd);

// Where the expected figures come from: "earlier_runs" (every stage that counts), "mixed", or
// "share_of_cap" (none: the quarter-of-cap rule).
std::string ExpectedBasis(const CostForecast& forecast);
// The sentence the receipt says it with: "Expected: what each role used in this project's
// earlier runs on the same routes (the median)." / "Expected: a quarter of each output cap (this
// project has fewer than 3 earlier runs on these routes to learn from)." / the mixed form.
std::string ExpectedBasisSentence(const CostForecast& forecast);

// A total line, then one line per stage:
//   Estimate (expected – worst case): 112,345 – 870,000 input and 61,440 – 409,600 output
//   tokens, $0.1041 – $0.8200. …
//   - candidate 1, p/m: 518 – 518 input, 12,288 – 49,152 output tokens, $0.0187 – $0.0740
//   - evaluation repair (only after an invalid evaluation), p/m: …
// Then ExpectedBasisSentence, and a stage whose expected figures come from earlier runs says of
// how many. Stages on a subscription route say their use is counted against the subscription; a
// route without prices says so; `tool_using_candidates` adds that the candidates' tool turns are
// not in the share-of-cap figures (earlier runs' figures include them); `evaluator_tool_calls`
// (policy.evaluator_tools: the evaluator's budget; 0 without tools) that the evaluator's are in
// neither.
// With a cost cap the total line ends with the cap's rule (CostCapRuleText).
// REQUIRES: `forecast` was computed from `plan`.
std::string CostEstimateText(const BudgetPlan& plan, const CostForecast& forecast,
                             bool tool_using_candidates, std::optional<double> cap = std::nullopt,
                             int64_t evaluator_tool_calls = 0);

// What a cap of `cap` does to the run, as the receipt says it:
//   Cost cap $0.5000 (policy.max_cost_usd), a hard bound: every model request of every child is
//   admitted against it before it is sent, its output limit lowered to what is left, and the run
//   stops (cost_cap_exceeded) rather than spend more; the run needs $0.0153 at the least.
std::string CostCapRuleText(double cap, const CostForecast& forecast);

// {expected:{input_tokens, output_tokens, usd}, worst_case:{…}, unpriced_stages,
//  subscription_stages, expected_basis, stages:[{stage, slot, route, conditional,
//  expected_basis: "earlier_runs"|"share_of_cap", history_runs, subscription,
//  input_tokens:{expected, worst_case}, output_tokens:{…}, usd:{…}|null}]}
nlohmann::json CostForecastJson(const BudgetPlan& plan, const CostForecast& forecast);

// What a completed run's result keeps of its estimate, to show the bill beside it:
// {"expected_usd", "worst_case_usd", "expected_basis", "unpriced_stages"}.
nlohmann::json EstimateSummaryJson(const CostForecast& forecast);

}  // namespace pi_fusion::budget
