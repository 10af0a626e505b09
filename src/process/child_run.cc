#include "process/child_run.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>

#include "core/error_codes.h"
#include "core/file_system.h"

namespace pi_fusion::process {
namespace {

using std::chrono::milliseconds;

constexpr size_t kChunk = 64 * 1024;         // one pipe buffer: per read and per stdin write
constexpr int kMaxChunksPerRound = 16;       // fairness between streams, and timely clock reads
constexpr int kDrainAfterExitChunks = 1024;  // 64 MiB, far above any pipe buffer
// Upper bound of one poll; keeps clock reads regular even if every deadline is far away.
constexpr milliseconds kMaxPollSlice{1000};
// Exit polling period when there is no pidfd (the portable fallback).
constexpr milliseconds kExitPollPeriod{10};

std::string FormatDuration(milliseconds d) {
  const auto ms = d.count();
  if (ms != 0 && ms % 60000 == 0) return std::to_string(ms / 60000) + " min";
  if (ms != 0 && ms % 1000 == 0) return std::to_string(ms / 1000) + " s";
  return std::to_string(ms) + " ms";
}

const char* SignalName(int sig) { return sig == SIGKILL ? "SIGKILL" : "SIGTERM"; }

}  // namespace

ChildRun::ChildRun(ProcessEnv* env, const ChildSpec& spec, const CancelToken& cancel,
                   const ProgressCallback& progress)
    : env_(env), spec_(spec), cancel_(cancel), progress_(progress), buffer_(kChunk) {}

ChildOutcome ChildRun::Supervise(const SpawnedProcess& child, TimePoint started,
                                 std::chrono::system_clock::time_point started_wall) {
  outcome_.pid = child.pid;
  outcome_.started_at = started_wall;
  out_ = {child.stdout_fd,        spec_.limits.stdout_cap,
          &outcome_.stdout_bytes, &outcome_.stdout_truncated,
          StopReason::kStdoutCap, "stdout"};
  err_ = {child.stderr_fd,        spec_.limits.stderr_cap,
          &outcome_.stderr_bytes, &outcome_.stderr_truncated,
          StopReason::kStderrCap, "stderr"};
  stdin_fd_ = child.stdin_fd;
  started_ = last_activity_ = last_progress_ = now_ = started;
  exit_fd_ = env_->OpenExitWatch(child.pid);
  if (spec_.stdin_data.empty()) CloseFd(&stdin_fd_, "stdin");
  ReportProgress(ChildProgress::Event::kSpawned);
  OnStarted();

  while (phase_ != Phase::kDone) {
    now_ = env_->clock().Now();
    CheckTimers();
    if (phase_ == Phase::kDone) break;
    if (leader_exited_ && !PipesOpen()) {
      phase_ = Phase::kDone;
      break;
    }
    PollOnce();
  }
  Finish();
  return std::move(outcome_);
}

// Saturating: a test clock may jump backwards; elapsed time is never negative.
milliseconds ChildRun::Elapsed(TimePoint since) const {
  if (now_ <= since) return milliseconds(0);
  return std::chrono::duration_cast<milliseconds>(now_ - since);
}

milliseconds ChildRun::IdleLimit() const {
  if (any_output_) return spec_.limits.idle;
  return std::max(spec_.limits.idle, spec_.limits.idle_before_output);
}

void ChildRun::CheckTimers() {
  const ChildLimits& limits = spec_.limits;
  switch (phase_) {
    case Phase::kRunning:
      if (Elapsed(started_) >= limits.wall) {
        Trigger(StopReason::kWallLimit,
                Status::Error(kChildTimeout,
                              "child exceeded the wall limit of " + FormatDuration(limits.wall)));
      } else if (Elapsed(last_activity_) >= IdleLimit()) {
        outcome_.idle_before_output = !any_output_;
        Trigger(StopReason::kIdleLimit,
                Status::Error(kChildTimeout, "child wrote nothing to stdout or stderr for " +
                                                 FormatDuration(IdleLimit()) + " (idle limit)"));
      } else if (answered_ && Elapsed(answered_at_) >= limits.after_answer) {
        Trigger(StopReason::kAfterAnswer, Status::Ok());
      }
      break;
    case Phase::kTerminating:
      if (Elapsed(phase_started_) >= phase_limit_) {
        Signal(SIGKILL);
        EnterPhase(Phase::kKilling, limits.kill_wait);
      }
      break;
    case Phase::kKilling:
      if (Elapsed(phase_started_) >= phase_limit_) GiveUp();
      break;
    case Phase::kDone:
      break;
  }
}

milliseconds ChildRun::NextTimeout() const {
  milliseconds timeout = kMaxPollSlice;
  if (phase_ == Phase::kRunning) {
    timeout = std::min(timeout, spec_.limits.wall - Elapsed(started_));
    timeout = std::min(timeout, IdleLimit() - Elapsed(last_activity_));
    if (answered_) timeout = std::min(timeout, spec_.limits.after_answer - Elapsed(answered_at_));
  } else {
    timeout = std::min(timeout, phase_limit_ - Elapsed(phase_started_));
  }
  if (exit_fd_ < 0 && !leader_exited_) timeout = std::min(timeout, kExitPollPeriod);
  return std::max(timeout, milliseconds(0));
}

void ChildRun::PollOnce() {
  if (poll_failed_) {
    ServiceWithoutPoll();
    return;
  }
  pollfd fds[5];
  size_t n = 0;
  auto add = [&](int fd, short events) -> pollfd* {
    if (fd < 0) return nullptr;
    fds[n] = pollfd{fd, events, 0};
    return &fds[n++];
  };
  // A cancelled token stays readable, so it is polled only until the stop has begun.
  pollfd* cancel = phase_ == Phase::kRunning ? add(cancel_.wait_fd(), POLLIN) : nullptr;
  pollfd* exited = leader_exited_ ? nullptr : add(exit_fd_, POLLIN);
  pollfd* in = add(stdin_fd_, POLLOUT);
  pollfd* out = add(out_.fd, POLLIN);
  pollfd* err = add(err_.fd, POLLIN);

  int ready = env_->Poll(std::span<pollfd>(fds, n), NextTimeout());
  now_ = env_->clock().Now();
  if (ready < 0) {
    OnPollFailed(-ready);
    return;
  }
  if (out != nullptr && out->revents != 0) Drain(&out_, kMaxChunksPerRound);
  if (err != nullptr && err->revents != 0) Drain(&err_, kMaxChunksPerRound);
  if (process_kept_) return;
  if (in != nullptr && in->revents != 0) WriteStdin();
  // Before the exit check: a child that has already exited is simply seen to its end.
  if ((out != nullptr && out->revents != 0) || (err != nullptr && err->revents != 0)) {
    CheckAnswer();
  }
  if (exit_fd_ < 0 || (exited != nullptr && exited->revents != 0)) CheckLeader();
  if (cancel != nullptr && cancel->revents != 0) {
    Trigger(StopReason::kCancelled, Status::Error(kChildCancelled, "child cancelled"));
  }
  ReportProgress(ChildProgress::Event::kOutput);
}

// poll() failing at all (ENOMEM) leaves the loop blind: the child is stopped, and the rest of
// the run continues in ServiceWithoutPoll() mode so that it still ends on its timers.
void ChildRun::OnPollFailed(int err) {
  if (poll_failed_) return;
  poll_failed_ = true;
  outcome_.cleanup_errors.push_back("poll: " + ErrnoText(err));
  Trigger(StopReason::kSupervisorError,
          Status::Error(kChildExitFailed, "supervisor poll failed: " + ErrnoText(err)));
}

// Degraded loop round: sleep briefly, then try every non-blocking operation.
void ChildRun::ServiceWithoutPoll() {
  env_->clock().SleepFor(std::min(NextTimeout(), kExitPollPeriod));
  now_ = env_->clock().Now();
  Drain(&out_, kMaxChunksPerRound);
  Drain(&err_, kMaxChunksPerRound);
  if (stdin_fd_ >= 0) WriteStdin();
  CheckLeader();
}

void ChildRun::Drain(Stream* stream, int max_chunks) {
  for (int i = 0; i < max_chunks && stream->fd >= 0 && !process_kept_; ++i) {
    IoResult r = env_->Read(stream->fd, buffer_.data(), buffer_.size());
    if (r.bytes > 0) {
      OnRead(stream, buffer_.data(), static_cast<size_t>(r.bytes));
      continue;
    }
    if (r.bytes < 0 && r.error == EAGAIN) return;
    if (r.bytes < 0) {
      outcome_.cleanup_errors.push_back(std::string("reading ") + stream->name + ": " +
                                        ErrnoText(r.error));
    }
    CloseFd(&stream->fd, stream->name);  // EOF, or a read error we cannot recover from
  }
}

void ChildRun::OnRead(Stream* stream, const char* data, size_t size) {
  last_activity_ = now_;
  any_output_ = true;
  Append(stream, data, size);
  CheckFirstOutput();
}

bool ChildRun::EndKeepingProcess() {
  if (phase_ != Phase::kRunning || leader_exited_) return false;
  process_kept_ = true;
  phase_ = Phase::kDone;
  return true;
}

// Keeps at most `cap` bytes. Bytes past the cap are still read (and dropped) so that a child
// flushing on SIGTERM cannot block on a full pipe during the grace period.
void ChildRun::Append(Stream* stream, const char* data, size_t size) {
  const size_t kept = stream->bytes->size();
  const size_t room = stream->cap > kept ? stream->cap - kept : 0;
  stream->bytes->append(data, std::min(size, room));
  if (size <= room || *stream->truncated) return;
  *stream->truncated = true;
  Trigger(stream->cap_reason,
          Status::Error(kChildOutputCap, std::string("child ") + stream->name +
                                             " exceeded its cap of " + std::to_string(stream->cap) +
                                             " bytes"));
}

// Writes are interleaved with reads in the same loop, so a child that floods stdout before it
// reads stdin cannot deadlock against us.
void ChildRun::WriteStdin() {
  const std::string& data = spec_.stdin_data;
  size_t& written = outcome_.stdin_bytes_written;
  for (int i = 0; i < kMaxChunksPerRound && written < data.size(); ++i) {
    const size_t size = std::min(kChunk, data.size() - written);
    IoResult r = env_->Write(stdin_fd_, data.data() + written, size);
    if (r.bytes >= 0) {
      written += static_cast<size_t>(r.bytes);
      continue;
    }
    if (r.error == EAGAIN) return;
    CloseFd(&stdin_fd_, "stdin");
    Trigger(
        StopReason::kStdinFailed,
        Status::Error(kChildStdinFailed,
                      "writing the child's stdin failed after " + std::to_string(written) + " of " +
                          std::to_string(data.size()) + " bytes: " + ErrnoText(r.error)));
    return;
  }
  if (written == data.size()) CloseFd(&stdin_fd_, "stdin");  // EOF tells the child: that's all
}

void ChildRun::CheckLeader() {
  if (leader_exited_) return;
  Result<std::optional<ExitStatus>> r = env_->CheckExit(outcome_.pid, /*reap=*/false);
  if (!r.ok()) {
    // ECHILD: someone else reaped our child (e.g. SIGCHLD set to SIG_IGN in the host). It is
    // gone, but its exit status is lost.
    outcome_.cleanup_errors.push_back(r.status().message());
    leader_lost_ = true;
  } else if (!r.value().has_value()) {
    return;
  }
  leader_exited_ = true;
  OnLeaderExited();
}

void ChildRun::OnLeaderExited() {
  // Whatever the leader wrote is already in the pipes; read it all (a pipe holds at most
  // pipe-max-size, 1 MiB by default) so that EOF, if it is there, is seen now.
  Drain(&out_, kDrainAfterExitChunks);
  Drain(&err_, kDrainAfterExitChunks);
  if (stdin_fd_ >= 0) {
    CloseFd(&stdin_fd_, "stdin");
    Trigger(
        StopReason::kStdinFailed,
        Status::Error(kChildStdinFailed,
                      "child exited after reading " + std::to_string(outcome_.stdin_bytes_written) +
                          " of " + std::to_string(spec_.stdin_data.size()) + " stdin bytes"));
  }
  // EOF not reached although the leader is gone: another member of its group holds the pipes
  // (a grandchild). Stop the group rather than wait on it for ever.
  if (phase_ == Phase::kRunning && PipesOpen()) {
    outcome_.group_outlived_leader = true;
    BeginStop();
  }
}

// The first reason wins; later ones (a cancel during the grace period) change nothing.
void ChildRun::Trigger(StopReason reason, Status status) {
  if (outcome_.stop_reason == StopReason::kNone) {
    outcome_.stop_reason = reason;
    outcome_.status = std::move(status);
  }
  BeginStop();
}

void ChildRun::BeginStop() {
  if (phase_ != Phase::kRunning) return;
  outcome_.stopped_after_answer = answered_;
  Signal(SIGTERM);
  milliseconds grace = spec_.limits.term_grace;
  if (outcome_.stop_reason == StopReason::kCancelled) {
    if (auto asked = cancel_.stop_grace(); asked && *asked < grace) grace = *asked;
  }
  EnterPhase(Phase::kTerminating, grace);
}

void ChildRun::EnterPhase(Phase phase, milliseconds limit) {
  phase_ = phase;
  phase_started_ = now_;
  phase_limit_ = limit;
}

void ChildRun::Signal(int sig) {
  int err = env_->KillGroup(outcome_.pid, sig);
  if (err != 0 && err != ESRCH) {  // ESRCH: the group is already empty
    outcome_.cleanup_errors.push_back(std::string("kill(-") + std::to_string(outcome_.pid) + ", " +
                                      SignalName(sig) + "): " + ErrnoText(err));
  }
}

// The kill wait is over: stop reading and report what is still alive.
void ChildRun::GiveUp() {
  if (!leader_exited_) {
    outcome_.cleanup_errors.push_back("child " + std::to_string(outcome_.pid) +
                                      " did not exit within the kill wait after SIGKILL; it "
                                      "was not reaped");
  }
  if (PipesOpen()) {
    outcome_.cleanup_errors.push_back(
        "stdout/stderr still open after SIGKILL and the kill wait (held by a process outside "
        "the group); stopped reading");
  }
  phase_ = Phase::kDone;
}

void ChildRun::CloseFd(int* fd, const char* what) {
  if (*fd < 0) return;
  int err = env_->Close(*fd);
  *fd = -1;
  if (err != 0)
    outcome_.cleanup_errors.push_back(std::string("close ") + what + ": " + ErrnoText(err));
}

// Sweeps the group with SIGKILL while the leader is still an unreaped zombie (its pid, and so
// the pgid, cannot be reused yet), then reaps the leader.
// A kept process (EndKeepingProcess) keeps its descriptors and is neither signalled nor reaped.
void ChildRun::Finish() {
  CloseFd(&stdin_fd_, "stdin");
  if (!process_kept_) {
    CloseFd(&out_.fd, "stdout");
    CloseFd(&err_.fd, "stderr");
  }
  CloseFd(&exit_fd_, "exit watch");
  if (leader_exited_ && !leader_lost_ && !process_kept_) {
    Signal(SIGKILL);
    Result<std::optional<ExitStatus>> r = env_->CheckExit(outcome_.pid, /*reap=*/true);
    if (!r.ok()) {
      outcome_.cleanup_errors.push_back(r.status().message());
    } else if (!r.value().has_value()) {
      outcome_.cleanup_errors.push_back("child " + std::to_string(outcome_.pid) +
                                        " exited but could not be reaped");
    } else {
      outcome_.exit_code = r.value()->exit_code;
      outcome_.term_signal = r.value()->signal;
    }
  }
  now_ = env_->clock().Now();
  outcome_.duration = Elapsed(started_);
  outcome_.ended_at = env_->clock().WallNow();
}

// Asks the caller's answer check once per round with new bytes, until it says true; then tells the
// caller, with a copy of what was captured so far, and starts the after-answer timer.
void ChildRun::CheckAnswer() {
  if (answered_ || phase_ != Phase::kRunning || leader_exited_ || !spec_.answer_complete) return;
  if (!spec_.answer_complete(outcome_.stdout_bytes, outcome_.stderr_bytes)) return;
  answered_ = true;
  answered_at_ = now_;
  outcome_.answer_at = Elapsed(started_);
  if (spec_.on_answer) spec_.on_answer(outcome_);
}

// Asks the caller's first-output check after each read, until it first says true, so the mark is
// the time of the read that brought it (not the next progress report's).
void ChildRun::CheckFirstOutput() {
  if (outcome_.first_output_at || !spec_.first_output || !any_output_) return;
  if (!spec_.first_output(outcome_.stdout_bytes, outcome_.stderr_bytes)) return;
  outcome_.first_output_at = Elapsed(started_);
}

// kSpawned once; kOutput only when something new was captured and the interval has passed.
void ChildRun::ReportProgress(ChildProgress::Event event) {
  if (!progress_) return;
  const size_t out_size = outcome_.stdout_bytes.size();
  const size_t err_size = outcome_.stderr_bytes.size();
  if (event == ChildProgress::Event::kOutput) {
    if (out_size == reported_stdout_ && err_size == reported_stderr_) return;
    if (Elapsed(last_progress_) < spec_.limits.progress_interval) return;
  }
  last_progress_ = now_;
  reported_stdout_ = out_size;
  reported_stderr_ = err_size;
  ChildProgress p;
  p.event = event;
  p.pid = outcome_.pid;
  p.stdout_size = out_size;
  p.stderr_size = err_size;
  p.stderr_bytes = outcome_.stderr_bytes;
  p.elapsed = Elapsed(started_);
  progress_(p);
}

}  // namespace pi_fusion::process
