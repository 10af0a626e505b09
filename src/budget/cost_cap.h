// The cost cap (fusion-models.json `policy.max_cost_usd`): a run whose expected cost exceeds the
// cap is refused before any child starts, and a run stops before its next stage when what it has
// spent plus the expected cost of the stages still to run would exceed the cap. Both refusals are
// `cost_cap_exceeded`; no cap means no check at all.
//
// What the cap binds: dollars as the forecast (cost_forecast.h) and Pi's usage records price
// them. A stage on a route without prices counts $0 in the forecast, so the cap binds priced
// spend only (it cannot judge what nobody priced; the messages say when stages are unpriced). A
// subscription route counts at its catalog prices, as its estimate lines do: the cap bounds what
// the run would cost per token, not the subscription.
//
// Pure functions on values; thread-safe.
#pragma once

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

// Preflight: Ok without a cap or when the run's expected cost (forecast.usd.expected, the
// conditional repair left out) is within it; otherwise cost_cap_exceeded naming the estimate and
// the cap.
Status CheckCostCapBeforeRun(const std::optional<double>& cap, const CostForecast& forecast);

// Before `next` (the evaluation, its repair or the merge) starts: Ok without a cap or when
// spent_usd + ExpectedCostFrom(forecast, next) is within it; otherwise cost_cap_exceeded naming the
// spend, the expected cost still to come, the cap, and what the run keeps (CapStopNextStep).
Status CheckCostCapBeforeStage(const std::optional<double>& cap, double spent_usd,
                               const CostForecast& forecast, Stage next, const CapStopKept& kept);

// How to go on after the cap stopped a run: what it kept, where, what to change, and that
// /fusion-resume then goes on from what is kept (a run with a verified candidate answer is
// resumable). The one place that says it.
std::string CapStopNextStep(const CapStopKept& kept);

}  // namespace pi_fusion::budget
