#include "budget/cost_cap.h"

#include <algorithm>

#include "budget/cost_text.h"
#include "budget/stage_text.h"
#include "core/error_codes.h"
#include "core/number_text.h"

namespace pi_fusion::budget {
namespace {

// "the evaluation", "the evaluation repair", "the merge", "the agreement check", "the order
// check": the stages a mid-run check comes before.
std::string StageWords(Role stage, std::optional<Stage> check) {
  if (check == Stage::kAgreement) return "the agreement check";
  if (check == Stage::kOrderCheck) return "the order check";
  return "the " + StageLabel(stage, 0);
}

std::string LaterWords(std::optional<Stage> check) {
  return check == Stage::kAgreement ? "the evaluation's and the merge's minimum"
                                    : "the merge's minimum";
}

std::string CapText(double cap) {
  return "the cost cap of " + FormatUsd(cap) + " (policy.max_cost_usd)";
}

// What the minimum is, in the words every refusal uses.
std::string FirstRequestWords() {
  return "at one token per byte and a " + GroupedDigits(kMinUsefulOutputTokens) + "-token answer";
}

// A subscription route's requests count at its catalog prices, like its estimate lines.
std::string SubscriptionNote(const CostForecast& forecast) {
  return forecast.subscription_stages > 0 ? " Subscription routes count at their catalog prices."
                                          : "";
}

int Order(Role stage) {
  switch (stage) {
    case Role::kCandidate:
      return 0;
    case Role::kEvaluator:
    case Role::kRepair:
      return 1;
    case Role::kMerger:
      break;
  }
  return 2;
}

const StageCost* RowOf(const CostForecast& forecast, Role stage) {
  for (const StageCost& row : forecast.stages) {
    if (row.stage == stage && !row.check) return &row;
  }
  return nullptr;
}

}  // namespace

Status CheckCostCapBeforeRun(const std::optional<double>& cap, const BudgetPlan& plan,
                             const CostForecast& forecast) {
  if (!cap) return Status::Ok();
  for (const StageCost& stage : forecast.stages) {
    if (stage.prices) continue;
    const size_t route = static_cast<size_t>(stage.route);
    return Status::Error(
        kCostCapExceeded,
        CapText(*cap) + " cannot bound the " + std::string(SlotLabel(stage.route)) +
            " slot's route " + plan.routes[route].QualifiedId() +
            ": Pi gives no prices for it, so no request on it can be admitted against the cap; "
            "no child was started. Choose a priced route for that slot, or clear the cap, with "
            "/fusion-models.");
  }
  if (forecast.minimum_usd <= *cap) return Status::Ok();
  return Status::Error(
      kCostCapExceeded,
      CapText(*cap) + " cannot pay for the run's minimum, " + FormatUsd(forecast.minimum_usd) +
          ": each stage's first model request with its known prompt " + FirstRequestWords() +
          "; no child was started." + SubscriptionNote(forecast) +
          " Raise or clear the cap with /fusion-models, or choose cheaper routes.");
}

double LaterStagesMinimumUsd(const CostForecast& forecast, Role stage, std::optional<Stage> check) {
  double total = 0;
  for (const StageCost& row : forecast.stages) {
    if (row.conditional || (check && row.check == check)) continue;
    const bool later = check == Stage::kAgreement
                           ? !row.check && Order(row.stage) >= Order(Role::kEvaluator)
                           : Order(row.stage) > Order(stage);
    if (later) total += row.minimum_usd.value_or(0);
  }
  return total;
}

double CandidateAllowanceUsd(double cap, double spent_usd, const CostForecast& forecast,
                             int running) {
  return StageAllowanceUsd(cap, spent_usd, forecast, Role::kCandidate) / std::max(running, 1);
}

double StageAllowanceUsd(double cap, double spent_usd, const CostForecast& forecast, Role stage,
                         std::optional<Stage> check) {
  return std::max(0.0, cap - spent_usd - LaterStagesMinimumUsd(forecast, stage, check));
}

Status CheckCostCapBeforeStage(const std::optional<double>& cap, double spent_usd,
                               const CostForecast& forecast, Role next, int64_t prompt_bytes,
                               const CapStopKept& kept, std::optional<Stage> check) {
  if (!cap) return Status::Ok();
  const StageCost* row = RowOf(forecast, next);
  if (row == nullptr || !row->prices) return Status::Ok();
  const double left = StageAllowanceUsd(*cap, spent_usd, forecast, next, check);
  const double needed = StageMinimumUsd(prompt_bytes, *row->prices);
  if (needed <= left) return Status::Ok();
  const double later = LaterStagesMinimumUsd(forecast, next, check);
  return Status::Error(
      kCostCapExceeded,
      CapText(*cap) + " stopped the run before " + StageWords(next, check) + ": " +
          FormatUsd(spent_usd) + " spent so far leaves " + FormatUsd(left) + " for it" +
          (later > 0 ? " (" + LaterWords(check) + ", " + FormatUsd(later) + ", set aside)" : "") +
          ", less than its first model request needs at the least: " + FormatUsd(needed) +
          " for its " + GroupedDigits(static_cast<uint64_t>(prompt_bytes)) + "-byte prompt " +
          FirstRequestWords() + "." + SubscriptionNote(forecast) + " " + CapStopNextStep(kept));
}

std::string CapStopNextStep(const CapStopKept& kept) {
  const int n = kept.verified_candidates;
  constexpr char kRaise[] = "raise or clear policy.max_cost_usd with /fusion-models";
  if (n <= 0) return "Nothing verified is kept; " + std::string(kRaise) + " to run again.";
  std::string what = std::to_string(n) + " verified candidate answer" + (n == 1 ? "" : "s");
  if (kept.evaluation) what += " and the evaluation";
  const bool plural = n != 1 || kept.evaluation;
  return what + (plural ? " are" : " is") + " kept in " + kept.run_dir + "; " + kRaise +
         ", then resume the run with /fusion-resume " + kept.run_id + ", which reuses " +
         (plural ? "them" : "it") + ".";
}

}  // namespace pi_fusion::budget
