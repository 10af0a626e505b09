// The lifecycle of one Fusion launch, on the thread the binding gives it:
//
//   preflight ──> register the task ──> receipt handed to the host ──> execute ──> publish
//
// Preflight makes the run directory, its inputs and its budget plan durable; the task is then
// registered, and the receipt is handed to the host (the LifecycleSink returns only once it has
// been, which is the spec's no-child-yet barrier: no child exists before the receipt does). The
// orchestrator then runs the children, and the terminal state is recorded in the registry before
// it is published. Everything OS-facing goes through `seams`, so every path — repair, a
// cancellation at any stage, a full disk at any write — can be driven by tests through fakes.
//
// The cancel token exists before preflight starts: a session that ends (quit, /reload, /new)
// while preflight still works cancels the launch, which then ends durably as cancelled without
// ever starting a child.
//
// RunLifecycle never throws: an exception from any layer becomes a failed launch (before the
// receipt) or a durable failed run (after it).
//
// Thread-safety: RunLifecycle blocks its calling thread for the life of the run; the registry is
// thread-safe; the sink is called from this thread and from the run's candidate threads.
#pragma once

#include <string>

#include "process/cancel_token.h"
#include "run/run_request.h"
#include "run/run_seams.h"
#include "tasks/task_registry.h"
#include "views/lifecycle_texts.h"
#include "views/live_view.h"

namespace pi_fusion::host {

class LifecycleSink {
 public:
  virtual ~LifecycleSink() = default;
  // Exactly once per launch. For a successful launch, returns only once the receipt has been
  // handed to the host, or the host can no longer take it (the launch's token is then
  // cancelled); no child starts before.
  virtual void Launched(const views::LaunchReport& launch) = 0;
  // A progress line for the person ("fusion reason 1a2b3c4d: candidates 1/3 done · 0:42"). Must be
  // thread-safe.
  virtual void Progress(const std::string& line) = 0;
  // A candidate's verified answer, for the person only (never the agent). Must be thread-safe.
  virtual void CandidateLanded(const views::LandedReport&) {}
  // Once, after a successful Launched(), when the run has ended and its task's terminal state
  // is recorded in the registry.
  virtual void Ended(const views::TerminalReport& terminal) = 0;
};

// Runs one launch to its end. REQUIRES: `seams`, `registry` and `sink` outlive the call; `cancel`
// came from CancelToken::Create() before preflight.
void RunLifecycle(run::RunRequest request, const run::RunSeams& seams,
                  tasks::TaskRegistry& registry, const process::CancelToken& cancel,
                  LifecycleSink& sink);

}  // namespace pi_fusion::host
