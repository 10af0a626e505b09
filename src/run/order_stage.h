// The order check of a fusion run (policy.order_check "on_conflict"; workflow/order_check.h has
// the contract and the stability rule, docs/workflow.md "Order check"): after a verified
// evaluation with conflicts, one blind strict-JSON call on the evaluator's route per relabelling
// of the candidates, each repaired at most once like the evaluator, recorded as the manifest's
// `order_check` stage attempts 1, 2, ...; within the cost cap like every stage child. No
// conflicts, or the policy off: no call at all.
//
// Called on the run's own thread only.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "run/run_context.h"
#include "workflow/anonymize.h"
#include "workflow/order_check.h"
#include "workflow/stage_inputs.h"

namespace pi_fusion::run {

// nullopt when no check ran; else each conflict's outcome, in the evaluation's order, and
// ctx.order_check holds its record. A failure is recorded as the run's (stage order_check) and
// returned.
Result<std::optional<std::vector<workflow::ConflictOrder>>> CheckOrder(
    RunContext& ctx, const std::vector<workflow::AnonymousCandidate>& candidates,
    const nlohmann::json& evaluation, const workflow::AnonymousMap& map);

}  // namespace pi_fusion::run
