// The durable end of a completed run: every child reaped and its exit recorded, then the answer
// (merged.md) and the result details (result.json) committed with the final manifest, and
// ctx.outcome filled. A child that failed after its answer fails the run instead (child_exits.h).
//
// Called on the run's own thread only.
#pragma once

#include <string>

#include "run/run_context.h"
#include "workflow/anonymize.h"

namespace pi_fusion::run {

// `answer`: the merger's answer, or validate's host-rendered report; `map`: the letters the
// evaluator and the merger saw.
RunOutcome Commit(RunContext& ctx, const std::string& answer, const workflow::AnonymousMap& map);

}  // namespace pi_fusion::run
