// ChildRun: the poll loop and stop sequence behind Supervisor::Run, for one spawned child.
//
// Internal to the process layer. One instance supervises one child on the calling thread and is
// then discarded; it is not thread-safe and needs no locking because nothing else touches it.
//
// Loop: each round reads the clock, fires due timers (wall, idle, grace, kill wait), then polls
// the child's pipes, its exit watch (pidfd) and the cancel token, and services what is ready:
// drain stdout/stderr into capped buffers, write the next stdin chunk, notice the leader's exit.
// With an answer check, the caller is told when the child's answer is complete and the child
// gets limits.after_answer from then to exit before it is stopped.
// Phases: kRunning -> (limit, cancel, stdin error, or a group that outlives its leader)
// kTerminating (SIGTERM sent, grace) -> kKilling (SIGKILL sent, kill wait) -> kDone. A child
// that ends by itself goes from kRunning straight to kDone once its pipes are at EOF.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "process/process_env.h"
#include "process/supervisor.h"

namespace pi_fusion::process {

class ChildRun {
 public:
  using TimePoint = Clock::TimePoint;

  // All references must outlive the ChildRun.
  ChildRun(ProcessEnv* env, const ChildSpec& spec, const CancelToken& cancel,
           const ProgressCallback& progress);
  virtual ~ChildRun() = default;
  ChildRun(const ChildRun&) = delete;
  ChildRun& operator=(const ChildRun&) = delete;

  // Supervises `child` until it is reaped (or given up on after the kill wait) and returns the
  // outcome. Takes ownership of the child's descriptors and closes them all (but those a run
  // that ended with EndKeepingProcess() leaves open: see stdout/stderr of out_/err_).
  // REQUIRES: called once; `started` / `started_wall` were read just before the spawn.
  ChildOutcome Supervise(const SpawnedProcess& child, TimePoint started,
                         std::chrono::system_clock::time_point started_wall);

 protected:
  // A run may end before its process does: a pooled child's task (pooled_child.cc) derives from
  // ChildRun, reads the bytes itself and ends the loop at the task's end with the process left
  // running. A cold child overrides nothing.
  enum class Phase { kRunning, kTerminating, kKilling, kDone };

  // One captured output stream.
  struct Stream {
    int fd = -1;
    size_t cap = 0;
    std::string* bytes = nullptr;  // into outcome_
    bool* truncated = nullptr;     // into outcome_
    StopReason cap_reason = StopReason::kNone;
    const char* name = "";
  };

  // Bytes just read from `stream`. Default (a cold child): activity, captured up to the cap, the
  // first-output check.
  virtual void OnRead(Stream* stream, const char* data, size_t size);
  // Once, right after the kSpawned report and before the first poll. Default: nothing.
  virtual void OnStarted() {}
  // Ends the loop with the process still running: no stop, no reap, and the stdout/stderr
  // descriptors still open that were open (the caller keeps them). Only while kRunning and the
  // leader has not exited; returns whether it did (otherwise the run goes on to its usual end).
  bool EndKeepingProcess();
  bool process_kept() const { return process_kept_; }

  std::chrono::milliseconds Elapsed(TimePoint since) const;
  // The idle limit now: limits.idle, raised to limits.idle_before_output until the first byte.
  std::chrono::milliseconds IdleLimit() const;
  void CheckTimers();
  std::chrono::milliseconds NextTimeout() const;
  void PollOnce();
  void OnPollFailed(int err);
  void ServiceWithoutPoll();
  void Drain(Stream* stream, int max_chunks);
  void Append(Stream* stream, const char* data, size_t size);
  void WriteStdin();
  void CheckLeader();
  void OnLeaderExited();
  void Trigger(StopReason reason, Status status);
  void BeginStop();
  void EnterPhase(Phase phase, std::chrono::milliseconds limit);
  void Signal(int sig);
  void GiveUp();
  void CloseFd(int* fd, const char* what);
  void Finish();
  void ReportProgress(ChildProgress::Event event);
  void CheckAnswer();
  void CheckFirstOutput();
  bool PipesOpen() const { return out_.fd >= 0 || err_.fd >= 0; }

  ProcessEnv* const env_;
  const ChildSpec& spec_;
  const CancelToken& cancel_;
  const ProgressCallback& progress_;

  ChildOutcome outcome_;
  Stream out_;
  Stream err_;
  int stdin_fd_ = -1;
  int exit_fd_ = -1;  // pidfd, or -1: poll CheckExit instead
  bool leader_exited_ = false;
  bool leader_lost_ = false;   // exited but cannot be reaped by us (waitid failed)
  bool poll_failed_ = false;   // poll() failed once; the rest of the run sleeps and retries
  bool answered_ = false;      // ChildSpec::answer_complete said true (on_answer was called)
  bool any_output_ = false;    // a byte arrived on stdout or stderr
  bool process_kept_ = false;  // EndKeepingProcess() ended the run

  Phase phase_ = Phase::kRunning;
  TimePoint now_;
  TimePoint started_;
  TimePoint last_activity_;
  TimePoint phase_started_;
  TimePoint answered_at_;
  std::chrono::milliseconds phase_limit_{0};
  TimePoint last_progress_;
  size_t reported_stdout_ = 0;
  size_t reported_stderr_ = 0;
  std::vector<char> buffer_;
};

}  // namespace pi_fusion::process
