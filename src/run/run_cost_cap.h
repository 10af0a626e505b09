// A capped run's cost cap over its stages (budget/cost_cap.h has the arithmetic): the candidates'
// equal shares, each later stage's allowance from what the cap leaves, the check before a stage
// starts, and what a cap stop tells the person to do next. Without a cap (policy.max_cost_usd
// unset) nothing is read or checked.
//
// Called on the run's own thread only.
#pragma once

#include <optional>

#include "pi_fusion/status.h"
#include "run/child_stage.h"
#include "run/run_context.h"

namespace pi_fusion::run {

// A capped run's candidates share what the cap leaves after the later stages' minimum, equally;
// each child keeps to its share on its own (ctx.candidate_allowance).
void SplitCostCap(RunContext& ctx);

// `child` with its allowance when the run is capped: what the cap leaves after the spend so far
// and the later stages' minimum.
StageChild Capped(const RunContext& ctx, StageChild child);

// The cost cap before `child`'s stage starts: its allowance must pay for its first request. The
// measured spend is the manifest's usage total, Pi's own pricing of every request so far. False
// once the stop is recorded as the run's failure at the child's stage and `attempt`.
bool WithinCostCap(RunContext& ctx, const StageChild& child, std::optional<int> attempt);

// A child stopped by its share of the cost cap ends the run saying what is kept (`verified`
// candidate answers) and how to go on from it; any other status as it is.
Status WithCapNextStep(const RunContext& ctx, const Status& status, int verified);

// A capped quorum-2 run that cut `slot` after the grace window: the part of its share its usage
// records do not show (a request it had in flight left none, and may still be billed) counts as
// spent for the later stages' allowances.
void HoldCutShare(RunContext& ctx, int slot);

}  // namespace pi_fusion::run
