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

// A total line, then one line per stage:
//   Estimate (expected – worst case): 112,345 – 870,000 input and 61,440 – 409,600 output
//   tokens, $0.1041 – $0.8200. …
//   - candidate 1, p/m: 518 – 518 input, 12,288 – 49,152 output tokens, $0.0187 – $0.0740
//   - evaluation repair (only after an invalid evaluation), p/m: …
// Stages on a subscription route say their use is counted against the subscription; a route
// without prices says so; `tool_using_candidates` adds that the candidates' tool turns are not
// in the figures. With a cost cap the total line ends with the cap's rule (CostCapRuleText).
// REQUIRES: `forecast` was computed from `plan`.
std::string CostEstimateText(const BudgetPlan& plan, const CostForecast& forecast,
                             bool tool_using_candidates, std::optional<double> cap = std::nullopt);

// What a cap of `cap` does to the run, as the receipt says it:
//   Cost cap $0.5000 (policy.max_cost_usd), a hard bound: every model request of every child is
//   admitted against it before it is sent, its output limit lowered to what is left, and the run
//   stops (cost_cap_exceeded) rather than spend more; the run needs $0.0153 at the least.
std::string CostCapRuleText(double cap, const CostForecast& forecast);

// {expected:{input_tokens, output_tokens, usd}, worst_case:{…}, unpriced_stages,
//  subscription_stages, stages:[{stage, slot, route, conditional, subscription,
//  input_tokens:{expected, worst_case}, output_tokens:{…}, usd:{…}|null}]}
nlohmann::json CostForecastJson(const BudgetPlan& plan, const CostForecast& forecast);

}  // namespace pi_fusion::budget
