// Runs one stage child (a candidate, the evaluator, its repair, or the merger) and records it:
// the exact rendered prompt is re-checked against the route's budget, the attempt is recorded
// as running, the child runs under the supervisor, its frames are verified against its stdout,
// a tool-enabled child's audit log and seal are verified (tool_audit_invalid otherwise), and the
// attempt's artifacts, usage and outcome are written durably — success or not.
//
// Thread-safe: the three candidates run concurrently on their own threads.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/route_admission.h"
#include "process/cancel_token.h"
#include "process/child_command.h"
#include "store/manifest.h"
#include "workflow/output_contract.h"
#include "workflow/run_request.h"

namespace pi_fusion::workflow {

struct StageChild {
  store::AttemptKey key;
  config::Slot route = config::Slot::kCandidate1;
  process::ChildCapability capability = process::ChildCapability::kReason;
  budget::Stage budget_stage = budget::Stage::kCandidate;
  OutputKind output = OutputKind::kCandidate;
  std::string role;  // PI_FUSION_CHILD_ROLE: candidate | evaluator | merger
  // The tools the child may run (a tool-using workflow's candidates). Not empty: the child keeps
  // the sealed tool-call audit log, which must verify before its answer is accepted.
  std::vector<std::string> tools;
  std::string system_prompt;
  std::string stdin_text;
};

struct StageResult {
  Status status;       // ok: `answer` is verified and within its output contract
  std::string answer;  // the child's verified final answer
};

// REQUIRES: `run.store` is open; `cancel` outlives the call.
StageResult RunStageChild(PreparedRun& run, const StageChild& child,
                          const process::CancelToken& cancel);

}  // namespace pi_fusion::workflow
