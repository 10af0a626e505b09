// ChildJob: one stage child supervised on a thread of its own, so that its stage can move on at the
// child's complete answer while the child's exit is still awaited (docs/architecture-process.md,
// "Ending at the answer").
//
// The job sets the spec's answer hooks (process::ChildSpec::answer_complete / on_answer) from the
// given check; a launcher that ignores them (a test fake) simply reports the child's end.
//
// Thread-safe: the waits may be called from any one thread while the job's thread supervises.
// The destructor waits for the child's end, which the supervisor bounds (after_answer, then
// TERM -> grace -> KILL), so no child outlives its job.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "pi_fusion/status.h"
#include "process/supervisor.h"

namespace pi_fusion::run {

class ChildJob {
 public:
  // Runs the child to its end (a launcher's Run, or a warm child's Feed) with the spec it is given.
  using Runner = std::function<Result<process::ChildOutcome>(const process::ChildSpec&)>;

  // Starts `runner(spec)` now. A null `check` never ends the wait early: the child's end does.
  ChildJob(Runner runner, process::ChildSpec spec, process::AnswerCheck check);
  ~ChildJob();
  ChildJob(const ChildJob&) = delete;
  ChildJob& operator=(const ChildJob&) = delete;

  // Blocks until the child's answer is complete (*at_answer = true: the outcome so far, without
  // an exit status) or the child ended (*at_answer = false: its final outcome).
  Result<process::ChildOutcome> WaitForAnswerOrEnd(bool* at_answer);
  // Blocks until the child ended; its final outcome. REQUIRES: called once.
  Result<process::ChildOutcome> WaitForEnd();

 private:
  void Supervise(Runner runner);

  process::ChildSpec spec_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::optional<process::ChildOutcome> at_answer_;    // guarded by mu_
  std::optional<Result<process::ChildOutcome>> end_;  // guarded by mu_
  std::thread thread_;
};

}  // namespace pi_fusion::run
