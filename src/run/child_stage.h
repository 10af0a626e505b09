// Runs one stage child (a candidate, the evaluator, its repair, or the merger) and records it:
// the exact rendered prompt is re-checked against the route's budget, the attempt is recorded
// as running, the child runs under the supervisor, its frames are verified against its stdout,
// a tool-enabled child's audit log and seal are verified (tool_audit_invalid otherwise), and the
// attempt's artifacts, usage and outcome are written durably — success or not.
//
// Thread-safe: the three candidates run concurrently on their own threads.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/route_admission.h"
#include "process/cancel_token.h"
#include "process/child_command.h"
#include "run/run_request.h"
#include "run/source_failures.h"
#include "store/manifest.h"
#include "store/run_store.h"
#include "workflow/output_contract.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {

class WarmStages;

struct StageChild {
  store::AttemptKey key;
  Slot route = Slot::kCandidate1;
  process::ChildCapability capability = process::ChildCapability::kReason;
  // Its role: the budget stage its prompt is measured against (kRepair for the evaluation's
  // attempt 2); the child itself is told ChildRoleOf(key.stage).
  Role role = Role::kCandidate;
  workflow::OutputKind output = workflow::OutputKind::kCandidate;
  // The tools the child may run (a tool-using workflow's candidates). Not empty: the child keeps
  // the sealed tool-call audit log, which must verify before its answer is accepted.
  std::vector<std::string> tools;
  std::string system_prompt;
  std::string stdin_text;
  // Candidates of a run that warms its later stages: the parent's write end of the pipe their
  // first provider request signals (request_signal.h); the child inherits it as descriptor
  // FirstRequestSignal::kChildFd. -1 otherwise.
  int request_signal_fd = -1;
  // The child's share of the run's cost cap (budget/cost_cap.h), PI_FUSION_COST_ALLOWANCE_USD;
  // nullopt when the run has no cap.
  std::optional<double> cost_allowance_usd;
  // Sees the child's start and output while it runs (signs of life for the person); may be empty.
  process::ProgressCallback watch;
};

// Where a child writes the files the parent reads after it ended.
struct ChildFiles {
  std::string oversized;  // candidates only
  std::string journal;    // tool-enabled children only
  std::string seal;
};

// The stall bound of every stage child (the supervisor's idle watchdog): the policy's
// stall_seconds, else the default rule (config::kDefaultStallSeconds), rounded up to a whole
// millisecond. The child's progress frames (docs/protocol.md) keep it from firing while a model
// streams or a tool runs; the wall limit stays the outer bound.
std::chrono::milliseconds StallBound(const config::Policy& policy);

// Until a stage child's first byte — its Pi starting up and sending its first request, which
// writes nothing — the stall bound is at least this (ChildLimits::idle_before_output): a small
// bound must not stop a child that is still starting (three cold Pi children on a busy two-core
// machine were measured to take more than 12 s).
inline constexpr std::chrono::milliseconds kStallStartupAllowance{120000};

// The verdict on a child the idle watchdog stopped: child_stalled, naming the child (its role and
// slot), its model and the bound, e.g. "candidate 3 (local/m) stalled: no output, tool call or
// model-stream progress for 600 s (policy.stall_seconds)". `starting`: it fired before the
// child's first byte, under the start-up allowance, and says so.
Status StalledStatus(const StageChild& child, const config::ModelInfo& model,
                     std::chrono::milliseconds bound, bool starting = false);

// The child's final argv, environment, working directory, input and limits.
Result<process::ChildSpec> BuildChildSpec(const PreparedRun& run, const StageChild& child,
                                          const ChildFiles& files);

struct StageResult {
  Status status;       // ok: `answer` is verified and within its output contract
  std::string answer;  // the child's verified final answer
  // Set when the child's first provider request used more prompt tokens than the stage's
  // one-request forecast (`<prefix>.calibration-violation.json` is written then).
  std::optional<int64_t> under_forecast_tokens;
  // A tool-enabled child's file-tool calls the walls refused, by error_code, counted from its
  // audit log once that verified (tool_refusals.h); empty otherwise.
  std::map<std::string, int64_t> tool_refusals;
  // A research candidate's fetches of declared sources, from its verified audit log
  // (source_failures.h); empty otherwise.
  std::vector<SourceFetch> source_fetches;
  // A tool-enabled child's tool calls, as its settlement counted them; nullopt otherwise.
  std::optional<int64_t> tool_calls;
  // The weakest protection its grep and find walked under (WeakestWalkProtection), from its
  // verified audit log; nullopt when it walked nothing.
  std::optional<std::string> walk_protection;
  // A pooled process ran the child (policy.keep_warm_seconds; warm_pool.h).
  bool pooled = false;
};

// REQUIRES: `run.store` is open; `cancel` outlives the call. With `warm`, a warm child started
// for this stage (warm_stages.h) gets the input instead of a cold start, right after the exact
// rendered-prompt check. `carry`, when given, is what the run must make durable before this child
// gets its input (the stage's input documents, its state transitions): it is written with the
// attempt's first row in one manifest write, and emptied once written.
StageResult RunStageChild(PreparedRun& run, const StageChild& child,
                          const process::CancelToken& cancel, WarmStages* warm = nullptr,
                          store::StoreBatch* carry = nullptr);

// The stage of a resumed run that reuses `reused`, the verified attempt of the run it resumes
// (store/resumability.h), instead of starting `child`: the answer is checked again against the
// stage's output contract and a tool-using child's audit log again against its seal, tools and
// declared sources; then its files are copied into this run and the attempt is recorded as
// reused. No child runs. REQUIRES: run.resume is set.
StageResult ReuseStageChild(PreparedRun& run, const StageChild& child,
                            const store::ReusedAttempt& reused);

}  // namespace pi_fusion::run
