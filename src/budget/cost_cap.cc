#include "budget/cost_cap.h"

#include "budget/cost_text.h"
#include "budget/stage_text.h"
#include "core/error_codes.h"

namespace pi_fusion::budget {
namespace {

// "the evaluation", "the evaluation repair", "the merge": the stages a mid-run check comes before.
std::string StageWords(Stage stage) { return "the " + StageLabel(stage, 0); }

// The stages ExpectedCostFrom counts once the run is about to start `next`.
std::string StagesStillToRun(Stage next) {
  if (next == Stage::kMerge) return StageWords(next);
  return StageWords(next) + " and the merge";
}

std::string CapText(double cap) {
  return "the cost cap of " + FormatUsd(cap) + " (policy.max_cost_usd)";
}

// What the figures leave out, so nobody reads a cap that did not bind as a broken one.
std::string PricingNotes(const CostForecast& forecast) {
  std::string notes;
  if (forecast.unpriced_stages > 0) {
    notes += " " + std::to_string(forecast.unpriced_stages) +
             " stage(s) run on a route with no price and count $0 against the cap.";
  }
  if (forecast.subscription_stages > 0) {
    notes += " Subscription routes count at their catalog prices.";
  }
  return notes;
}

}  // namespace

Status CheckCostCapBeforeRun(const std::optional<double>& cap, const CostForecast& forecast) {
  if (!cap || forecast.usd.expected <= *cap) return Status::Ok();
  return Status::Error(
      kCostCapExceeded,
      "the run's expected cost, " + FormatUsd(forecast.usd.expected) + " (an estimate), exceeds " +
          CapText(*cap) + "; no child was started." + PricingNotes(forecast) +
          " Raise or clear the cap with /fusion-models, or choose cheaper routes.");
}

Status CheckCostCapBeforeStage(const std::optional<double>& cap, double spent_usd,
                               const CostForecast& forecast, Stage next, const CapStopKept& kept) {
  if (!cap) return Status::Ok();
  const double remaining = ExpectedCostFrom(forecast, next);
  if (spent_usd + remaining <= *cap) return Status::Ok();
  return Status::Error(
      kCostCapExceeded,
      CapText(*cap) + " stopped the run before " + StageWords(next) + ": " + FormatUsd(spent_usd) +
          " spent so far plus " + FormatUsd(remaining) + " expected for " + StagesStillToRun(next) +
          " (an estimate) would exceed it." + PricingNotes(forecast) + " " + CapStopNextStep(kept));
}

std::string CapStopNextStep(const CapStopKept& kept) {
  const int n = kept.verified_candidates;
  constexpr char kRaise[] = "raise or clear policy.max_cost_usd with /fusion-models";
  // Not reached by a run (the cap is checked only after the candidates verified), but a run
  // without a verified answer has nothing to resume from.
  if (n <= 0) return "nothing verified is kept; " + std::string(kRaise) + " to run again.";
  std::string what = std::to_string(n) + " verified candidate answer" + (n == 1 ? "" : "s");
  if (kept.evaluation) what += " and the evaluation";
  const bool plural = n != 1 || kept.evaluation;
  return what + (plural ? " are" : " is") + " kept in " + kept.run_dir + "; " + kRaise +
         ", then resume the run with /fusion-resume " + kept.run_id + ", which reuses " +
         (plural ? "them" : "it") + ".";
}

}  // namespace pi_fusion::budget
