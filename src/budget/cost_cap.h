// The cost cap (fusion-models.json `policy.max_cost_usd`): a hard bound on what one run spends,
// kept per model request (docs/budget.md, "Cost cap"). The parent hands every child an allowance
// in dollars when it starts it; the child admits each of its provider requests against what is
// left of its own allowance (child/core/cost_admission.h). The allowances never sum past the cap:
//
//   candidates  (cap - spent - the later stages' minimum) / the candidates that run, each
//   evaluation  cap - spent - the merge's minimum      (its repair likewise)
//   merge       cap - spent
//
// where `spent` is the run's measured spend (the manifest's usage total) when the stage starts
// and a stage's minimum is its first request at the least the admission sends (StageMinimumUsd).
// What one candidate leaves unspent is not handed to the others: no child waits on another.
//
// The refusals, all cost_cap_exceeded: at preflight, a capped run on a route without prices (the
// cap cannot bound it) or a cap below the run's minimum; before the evaluation, its repair or the
// merge, a stage whose allowance cannot pay for its first request. The expected cost is an
// estimate and never refuses a run. No cap means no check and no allowance at all.
//
// Pure functions on values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "budget/cost_forecast.h"
#include "budget/planner.h"
#include "pi_fusion/status.h"

namespace pi_fusion::budget {

// What a run keeps when the cap stops it, for the sentence that says how to go on.
struct CapStopKept {
  int verified_candidates = 0;
  bool evaluation = false;  // the evaluation verified and was written
  std::string run_dir;
  std::string run_id;  // what /fusion-resume is given to go on from what is kept
};

// Preflight: Ok without a cap. With one, cost_cap_exceeded when a stage that will run is on a
// route without prices (naming the first such slot and its route), or when the cap is below the
// run's minimum (forecast.minimum_usd, the conditional repair left out).
Status CheckCostCapBeforeRun(const std::optional<double>& cap, const BudgetPlan& plan,
                             const CostForecast& forecast);

// The minimum the stages after `stage` still need, in stage order candidate, evaluation, merge
// (the conditional repair is never set aside; after it comes the merge). `check` names a policy
// check on the evaluator's route about to run as `stage`: the agreement check comes before the
// evaluation (the evaluation and the merge are set aside), the order check after it (the merge).
// A candidate's later stages include the agreement check's row.
double LaterStagesMinimumUsd(const CostForecast& forecast, Role stage,
                             std::optional<Stage> check = std::nullopt);

// Each of `running` candidates' allowance: max(0, cap - spent - the later stages' minimum),
// split equally. REQUIRES: running >= 1.
double CandidateAllowanceUsd(double cap, double spent_usd, const CostForecast& forecast,
                             int running);

// The allowance of the evaluation's, its repair's or the merge's child:
// max(0, cap - spent - the later stages' minimum).
double StageAllowanceUsd(double cap, double spent_usd, const CostForecast& forecast, Role stage,
                         std::optional<Stage> check = std::nullopt);

// Before `next` (the evaluation, its repair or the merge; or `check` as `next`) starts with a
// prompt of `prompt_bytes`:
// Ok without a cap, or when StageAllowanceUsd pays for StageMinimumUsd(prompt_bytes) on its
// route; otherwise cost_cap_exceeded naming the spend, what is left for the stage, what its first
// request needs, and what the run keeps (CapStopNextStep).
Status CheckCostCapBeforeStage(const std::optional<double>& cap, double spent_usd,
                               const CostForecast& forecast, Role next, int64_t prompt_bytes,
                               const CapStopKept& kept, std::optional<Stage> check = std::nullopt);

// How to go on after the cap stopped a run: what it kept, where, what to change, and that
// /fusion-resume then goes on from what is kept (a run with a verified candidate answer is
// resumable). The one place that says it.
std::string CapStopNextStep(const CapStopKept& kept);

}  // namespace pi_fusion::budget
