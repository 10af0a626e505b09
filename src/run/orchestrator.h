// The Fusion run after preflight: three candidates in parallel under the run's quorum (fail fast,
// or quorum 2 with a grace window: workflow/candidate_quorum.h), random A/B/C anonymization, a
// blind evaluator with at most one repair, the merger, and the durable commit of merged.md and
// result.json. Every failure and cancellation ends in a durable terminal manifest (error.json,
// then the manifest, then one failure-summary attempt).
//
// The fusion sequence (reason, investigate, research) is orchestrator.cc; validate's is
// validate_sequence.h. What both share is in run_context.h and the files it names.
//
// Thread-safe: Execute() blocks its calling thread (a worker, never the JS thread) and runs the
// candidates on threads of its own, all joined before it returns.
#pragma once

#include "process/cancel_token.h"
#include "run/run_request.h"

namespace pi_fusion::run {

// REQUIRES: `run` came from a successful Preflight(). `cancel` may be triggered from any thread.
RunOutcome Execute(PreparedRun& run, const process::CancelToken& cancel, RunObserver& observer);

}  // namespace pi_fusion::run
