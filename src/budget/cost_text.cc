#include "budget/cost_text.h"

#include <cstdio>

#include "budget/stage_text.h"
#include "core/number_text.h"

namespace pi_fusion::budget {
namespace {

using nlohmann::json;

std::string Grouped(int64_t n) { return GroupedDigits(static_cast<uint64_t>(n)); }

std::string Range(const TokenRange& range) {
  return Grouped(range.expected) + " – " + Grouped(range.worst);
}

std::string UsdText(const UsdRange& usd) {
  return FormatUsd(usd.expected) + " – " + FormatUsd(usd.worst);
}

std::string RowLabel(const StageCost& stage) {
  if (stage.check == Stage::kAgreement) return "agreement check";
  if (stage.check == Stage::kOrderCheck) {
    return "order check, " + std::to_string(stage.calls) + " calls";
  }
  return StageLabel(stage.stage, stage.slot);
}

// When a row's stage runs, if not always.
std::string_view WhenText(const StageCost& stage) {
  if (stage.check == Stage::kAgreement) return " (not asked when the two answers are identical)";
  if (stage.check == Stage::kOrderCheck) return " (only when the evaluation names conflicts)";
  if (!stage.conditional) return "";
  if (stage.stage == Role::kCandidate) return " (only when candidates 1 and 2 disagree)";
  return " (only after an invalid evaluation)";
}

std::string StageLine(const BudgetPlan& plan, const StageCost& stage) {
  std::string line = "- " + RowLabel(stage);
  line += WhenText(stage);
  line += ", " + plan.routes[static_cast<size_t>(stage.route)].QualifiedId() + ": " +
          Range(stage.input) + " input, " + Range(stage.output) + " output tokens, ";
  if (stage.from_history) {
    line = line.substr(0, line.size() - 2) + " (expected: the median of " +
           std::to_string(stage.history_runs) + " earlier runs), ";
  }
  if (!stage.usd) return line + "no price known";
  line += UsdText(*stage.usd);
  if (stage.subscription) line += " at catalog prices, counted against the subscription";
  return line;
}

bool HasCheck(const CostForecast& forecast, Stage check) {
  for (const StageCost& stage : forecast.stages) {
    if (stage.check == check) return true;
  }
  return false;
}

json RangeJson(int64_t expected, int64_t worst) {
  return {{"expected", expected}, {"worst_case", worst}};
}

}  // namespace

std::string FormatUsd(double usd) {
  char text[48];
  std::snprintf(text, sizeof(text), "$%.4f", usd);
  return text;
}

std::string ExpectedBasis(const CostForecast& forecast) {
  // A policy check's expected figures always follow its own rule (cost_forecast.h).
  int non_conditional = 0;
  for (const StageCost& stage : forecast.stages) {
    non_conditional += stage.conditional || stage.check ? 0 : 1;
  }
  if (forecast.history_stages == 0) return "share_of_cap";
  return forecast.history_stages >= non_conditional ? "earlier_runs" : "mixed";
}

std::string ExpectedBasisSentence(const CostForecast& forecast) {
  const std::string basis = ExpectedBasis(forecast);
  if (basis == "earlier_runs") {
    return "Expected: what each role used in this project's earlier runs on the same routes "
           "(the median).";
  }
  const std::string rule = "a quarter of each output cap";
  if (basis == "mixed") {
    return "Expected: the median of this project's earlier runs where a role has " +
           std::to_string(kHistoryMinRuns) + " on the same route, else " + rule + ".";
  }
  return "Expected: " + rule + " (this project has fewer than " + std::to_string(kHistoryMinRuns) +
         " earlier runs on these routes to learn from).";
}

std::string CostCapRuleText(double cap, const CostForecast& forecast) {
  return "Cost cap " + FormatUsd(cap) +
         " (policy.max_cost_usd), a hard bound: every model request of every child is admitted "
         "against it before it is sent, its output limit lowered to what is left, and the run "
         "stops (cost_cap_exceeded) rather than spend more; the run needs " +
         FormatUsd(forecast.minimum_usd) + " at the least.";
}

std::string CostEstimateText(const BudgetPlan& plan, const CostForecast& forecast,
                             bool tool_using_candidates, std::optional<double> cap,
                             int64_t evaluator_tool_calls) {
  std::string text = "Estimate (expected – worst case): " + Range(forecast.input) + " input and " +
                     Range(forecast.output) + " output tokens, " + UsdText(forecast.usd) + ".";
  text += " " + ExpectedBasisSentence(forecast);
  if (forecast.subscription_stages > 0) {
    text +=
        " Stages on a subscription route are counted against the subscription, not billed "
        "per token.";
  }
  if (forecast.unpriced_stages > 0) {
    text += " " + std::to_string(forecast.unpriced_stages) +
            " stage(s) run on a route with no price; the dollars leave them out.";
  }
  if (tool_using_candidates && ExpectedBasis(forecast) != "earlier_runs") {
    text += " Each tool call a candidate makes adds a model request that is not in the estimate.";
  } else if (tool_using_candidates) {
    text +=
        " The expected figures include the candidates' tool turns as earlier runs made them; the "
        "worst case does not count the model request each tool call adds.";
  }
  if (evaluator_tool_calls > 0) {
    text += " The evaluator may make up to " + std::to_string(evaluator_tool_calls) +
            " tool calls (policy.evaluator_tools), each adding a model request that is not in the "
            "estimate.";
  }
  if (HasCheck(forecast, Stage::kAgreement)) {
    text +=
        " Adaptive panel: the expected figures assume candidates 1 and 2 agree and candidate 3 "
        "is not asked; the worst case asks it.";
  }
  if (cap) text += " " + CostCapRuleText(*cap, forecast);
  for (const StageCost& stage : forecast.stages) text += "\n" + StageLine(plan, stage);
  return text;
}

json EstimateSummaryJson(const CostForecast& forecast) {
  return {{"expected_usd", forecast.usd.expected},
          {"worst_case_usd", forecast.usd.worst},
          {"expected_basis", ExpectedBasis(forecast)},
          {"unpriced_stages", forecast.unpriced_stages}};
}

json CostForecastJson(const BudgetPlan& plan, const CostForecast& forecast) {
  json stages = json::array();
  for (const StageCost& s : forecast.stages) {
    stages.push_back(
        {{"stage", s.check ? StageName(*s.check) : PlanStageName(s.stage)},
         {"slot", s.slot == 0 ? json(nullptr) : json(s.slot)},
         {"route", plan.routes[static_cast<size_t>(s.route)].QualifiedId()},
         {"conditional", s.conditional},
         {"expected_basis", s.from_history ? "earlier_runs" : "share_of_cap"},
         {"history_runs", s.history_runs},
         {"subscription", s.subscription},
         {"input_tokens", RangeJson(s.input.expected, s.input.worst)},
         {"output_tokens", RangeJson(s.output.expected, s.output.worst)},
         {"usd", s.usd ? json{{"expected", s.usd->expected}, {"worst_case", s.usd->worst}}
                       : json(nullptr)}});
    if (s.check) stages.back()["calls"] = s.calls;
  }
  return {{"expected",
           {{"input_tokens", forecast.input.expected},
            {"output_tokens", forecast.output.expected},
            {"usd", forecast.usd.expected}}},
          {"worst_case",
           {{"input_tokens", forecast.input.worst},
            {"output_tokens", forecast.output.worst},
            {"usd", forecast.usd.worst}}},
          {"unpriced_stages", forecast.unpriced_stages},
          {"subscription_stages", forecast.subscription_stages},
          {"expected_basis", ExpectedBasis(forecast)},
          {"stages", std::move(stages)}};
}

}  // namespace pi_fusion::budget
