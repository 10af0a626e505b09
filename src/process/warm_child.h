// WarmChild: a child started ahead of its input.
//
// A Pi child spends most of its cold start before it reads stdin, so a stage child can be started
// early with its final argv and environment, its stdin held open, and be given its input later.
// Until then it runs under no timer of its own: the wall limit and the idle watchdog start when
// Feed() writes its input (Supervisor semantics from there on). Its owner bounds it by the run's
// life instead: End() (or the destructor) stops an unfed child — SIGKILL to its whole group, since
// a child that never got its input holds nothing worth a grace period — and reaps it.
//
// Thread-compatible: one owner at a time. Every method blocks only briefly, except Feed (the life
// of the child) and End (at most the kill wait).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "process/process_env.h"
#include "process/supervisor.h"

namespace pi_fusion::process {

class WarmChild {
 public:
  // Spawns spec.argv / spec.env / spec.cwd now; spec.stdin_data and spec.limits are ignored here
  // (Feed takes the final ones). `env` must outlive the child. Error code child_spawn_failed.
  static Result<std::unique_ptr<WarmChild>> Start(ProcessEnv* env, const ChildSpec& spec);
  // Start() with a POSIX env the child owns.
  static Result<std::unique_ptr<WarmChild>> StartPosix(const ChildSpec& spec);

  WarmChild(const WarmChild&) = delete;
  WarmChild& operator=(const WarmChild&) = delete;
  ~WarmChild();  // End() unless fed or ended

  pid_t pid() const { return child_.pid; }
  std::chrono::system_clock::time_point started_at() const { return started_wall_; }

  // nullopt while the child still waits for its input; otherwise how it ended on its own (it is
  // then still unreaped, and End() reaps it). A failed check counts as ended ("exit status
  // unknown: …").
  std::optional<std::string> EndedBeforeInput();

  // Writes spec.stdin_data and supervises the child to its end under spec.limits, timed from now.
  // Same outcome as Supervisor::Run. REQUIRES: neither fed nor ended before.
  ChildOutcome Feed(const ChildSpec& spec, const CancelToken& cancel,
                    const ProgressCallback& progress = nullptr);

  // Stops an unfed child and its group and reaps it; a no-op once fed or ended. Returns how the
  // child ended, for the record ("killed before its input", "exited with code 1 before its input").
  std::string End(std::chrono::milliseconds kill_wait = std::chrono::milliseconds(5000));

 private:
  WarmChild(ProcessEnv* env, std::unique_ptr<ProcessEnv> owned, SpawnedProcess child,
            std::chrono::system_clock::time_point started_wall);
  void CloseAll();

  ProcessEnv* env_;
  std::unique_ptr<ProcessEnv> owned_env_;
  SpawnedProcess child_;
  std::chrono::system_clock::time_point started_wall_;
  std::optional<std::string> ended_;  // set once it ended before its input
  bool done_ = false;                 // fed or ended: nothing left to own
};

}  // namespace pi_fusion::process
