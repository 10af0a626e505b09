// WarmStages: the evaluator and merger children of one run, started while the candidates work.
//
// A Pi child spends most of its cold start before it reads stdin. So once every candidate is past
// its own start-up (its first provider request, FirstRequestSignal), the evaluator child and then
// the merger child are started with their final argv and environment and wait, stdin open, for
// their input. RunStageChild takes the warm child of its stage right after the exact
// rendered-prompt check and writes the input; its wall limit and idle watchdog start there. Until
// then a warm child is bounded by the run: EndUnused() stops every child that was not taken before
// the run's terminal manifest, so it never made a model request.
//
// The manifest stays truthful: a warm child that got its input is attempt 1 of its stage (the
// repair is still attempt 2 and always starts cold); one that was never used, or that ended before
// its input and was replaced by a cold start, is listed under `warm_children`.
//
// Off when the host sets PI_FUSION_WARM=0, when the run has a cost cap (a child's allowance is part
// of its environment, and the evaluator's and the merger's are known only once the stages before
// them have spent), when the launcher cannot start children ahead of their input, or when the
// signal pipe cannot be made; the run then starts every child cold.
//
// Thread-safety: Arm(), CandidatesEnded(), Take() and EndUnused() are called from the run's own
// thread; the watcher thread shares only the slots, under a mutex.
#pragma once

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "process/cancel_token.h"
#include "process/warm_child.h"
#include "run/child_stage.h"
#include "run/request_signal.h"
#include "run/run_request.h"

namespace pi_fusion::run {

// False when `environment` ("NAME=value" entries) sets PI_FUSION_WARM=0.
bool WarmingEnabled(const std::vector<std::string>& environment);

class WarmStages {
 public:
  explicit WarmStages(PreparedRun& run);
  ~WarmStages();  // stops the watcher and ends what is left, without recording it
  WarmStages(const WarmStages&) = delete;
  WarmStages& operator=(const WarmStages&) = delete;

  // The write end of the pipe the candidates signal (StageChild::request_signal_fd); -1 when
  // warming is off. Open until the candidate stage is over (CandidatesEnded).
  int signal_fd() const;

  // Watches for the first provider requests of the `candidates` candidate children the run
  // starts (three, fewer in a resumed run that reuses some), then starts `evaluator` and `merger`
  // (their stdin_text is ignored). No-op when off, or when no candidate child runs: the
  // evaluator's input is then ready at once and nothing is left to overlap with.
  // REQUIRES: called once, before the candidates start.
  void Arm(const StageChild& evaluator, const StageChild& merger,
           const process::CancelToken& run_cancel, int candidates);

  // The candidate stage is over: stop watching (children already started stay warm).
  void CandidatesEnded();

  // The warm child for attempt 1 of the evaluation or merge stage, if one was started for exactly
  // `spec` (argv, environment, cwd) and still waits for its input; null otherwise (start cold).
  // One that ended before its input, or whose command no longer matches, is ended and recorded as
  // replaced. An error only when that record cannot be written.
  Result<std::unique_ptr<process::WarmChild>> Take(const store::AttemptKey& key,
                                                   const process::ChildSpec& spec);

  // Ends every warm child not taken and records it as unused. Call before the terminal manifest.
  void EndUnused();

 private:
  struct Slot {
    pi_fusion::Stage stage;
    std::unique_ptr<process::WarmChild> child;  // guarded by mu_
    process::ChildSpec spec;                    // guarded by mu_
  };

  void Watch(StageChild evaluator, StageChild merger);
  void StopWatching();
  Slot* SlotFor(pi_fusion::Stage stage);

  PreparedRun& run_;
  std::unique_ptr<FirstRequestSignal> signal_;
  process::CancelToken stop_;
  int candidates_ = 0;  // the candidate children whose first requests Watch() waits for
  std::thread watcher_;
  std::mutex mu_;
  std::array<Slot, 2> slots_{Slot{pi_fusion::Stage::kEvaluation, nullptr, {}},
                             Slot{pi_fusion::Stage::kMerge, nullptr, {}}};
};

}  // namespace pi_fusion::run
