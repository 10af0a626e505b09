// How a run after preflight ends when it does not complete. RecordFailure writes the terminal
// state (failed, or cancelled with its cause) durably — the documents a stage that never began
// carried, the warm children never used, every child's exit settled, then error.json, the manifest
// and one failure-summary attempt (store::RunStore::Fail) — and fills ctx.outcome to say so.
//
// Called on the run's own thread only.
#pragma once

#include <optional>
#include <string>

#include "pi_fusion/status.h"
#include "run/run_context.h"

namespace pi_fusion::run {

// orchestration_failed, "internal error: <what>".
Status InternalError(const std::string& what);

bool IsCancellation(const Status& status);

// Writes the terminal state durably and fills ctx.outcome. The run is cancelled when its token
// is, or `status` is a child's cancellation; failed otherwise.
void RecordFailure(RunContext& ctx, const Status& status, std::optional<Stage> stage,
                   std::optional<int> slot, std::optional<int> attempt);

// RecordFailure, for a sequence that ends with it: the outcome.
RunOutcome FailOutcome(RunContext& ctx, const Status& status, std::optional<Stage> stage);

// RecordFailure, for a step that returns the failure as its own error.
Status Fail(RunContext& ctx, const Status& status, std::optional<Stage> stage,
            std::optional<int> slot, std::optional<int> attempt);

// The outcome after an exception escaped the run's sequence (`what` says which): the terminal
// state recorded as an internal error unless the run already reached one; when even that throws,
// a failed outcome without a durable record.
RunOutcome FailAfterException(RunContext& ctx, const std::string& what);

}  // namespace pi_fusion::run
