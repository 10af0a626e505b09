// Validate's sequence: three reviewers under the minority rule (reviewer_phase.h), the findings
// accounted for by the blind evaluator, the merger's summary, and the report rendered by the host
// (workflow/validation_render.h) and committed as the run's answer.
//
// Blocks the run's own thread; the reviewers run on threads of their own, joined before it goes on.
#pragma once

#include "run/run_context.h"

namespace pi_fusion::run {

// REQUIRES: ctx's run is validate's (StageShape::kValidation), fresh from preflight.
RunOutcome ExecuteValidate(RunContext& ctx);

}  // namespace pi_fusion::run
