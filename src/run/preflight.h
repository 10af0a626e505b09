// Preflight: everything that must be durable before a run's receipt is returned, and before any
// child exists — normalize (already done by the caller), load fusion-models.json, admit the five
// routes, build the canonical input, plan the budget, create the run directory and write
// canonical-input.json, context-omission-ledger.json (reason) and budget-plan.json.
//
// A fatal budget blocker still leaves a failed, durable run directory (the plan explains it) and
// returns `prompt_budget_exceeded_forecast`; so does an expected cost over the policy's cost cap,
// with `cost_cap_exceeded` (budget/cost_cap.h). Route or config problems fail before any
// directory exists. Thread-safe: one call per run, on any thread.
#pragma once

#include "pi_fusion/status.h"
#include "run/run_request.h"
#include "run/run_seams.h"

namespace pi_fusion::run {

struct PreflightFailure {
  Status status;
  std::string artifact_dir;  // empty when no run directory was created
};

// On failure `*failure` (REQUIRES: non-null) says why and where; the Result holds its status.
// The run keeps `seams` (REQUIRES: they outlive it) for everything it does later.
Result<PreparedRun> Preflight(RunRequest request, const RunSeams& seams, PreflightFailure* failure);

}  // namespace pi_fusion::run
