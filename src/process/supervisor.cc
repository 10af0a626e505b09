#include "process/supervisor.h"

#include "core/error_codes.h"
#include "process/child_run.h"

namespace pi_fusion::process {
namespace {

Status CheckLimits(const ChildLimits& limits) {
  using std::chrono::milliseconds;
  const milliseconds zero(0);
  if (limits.wall < zero || limits.idle < zero || limits.idle_before_output < zero ||
      limits.term_grace < zero || limits.kill_wait < zero || limits.progress_interval < zero ||
      limits.after_answer < zero) {
    return Status::Error(kChildSpawnFailed, "invalid child limits: negative duration");
  }
  return Status::Ok();
}

std::string JoinCleanupErrors(const ChildOutcome& outcome) {
  if (outcome.cleanup_errors.empty()) return "";
  std::string out = " (cleanup: ";
  for (size_t i = 0; i < outcome.cleanup_errors.size(); ++i) {
    if (i > 0) out += "; ";
    out += outcome.cleanup_errors[i];
  }
  return out + ")";
}

}  // namespace

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kNone:
      return "none";
    case StopReason::kWallLimit:
      return "wall_limit";
    case StopReason::kIdleLimit:
      return "idle_limit";
    case StopReason::kStdoutCap:
      return "stdout_cap";
    case StopReason::kStderrCap:
      return "stderr_cap";
    case StopReason::kCancelled:
      return "cancelled";
    case StopReason::kStdinFailed:
      return "stdin_failed";
    case StopReason::kSupervisorError:
      return "supervisor_error";
    case StopReason::kAfterAnswer:
      return "after_answer";
  }
  return "unknown";
}

Result<ChildOutcome> Supervisor::Run(const ChildSpec& spec, const CancelToken& cancel,
                                     const ProgressCallback& progress) const {
  if (cancel.IsCancelled()) {
    return Status::Error(kChildCancelled, "cancelled before the child was started");
  }
  if (Status s = CheckLimits(spec.limits); !s.ok()) return s;
  SpawnRequest request;
  request.argv = spec.argv;
  request.env = spec.env;
  request.cwd = spec.cwd;
  request.search_path = spec.search_path;
  request.die_with_parent = spec.die_with_parent;
  request.inherit_fds = spec.inherit_fds;
  const auto started_wall = env_->clock().WallNow();
  const auto started = env_->clock().Now();
  Result<SpawnedProcess> child = env_->Spawn(request);
  if (!child.ok()) return child.status();
  ChildRun run(env_, spec, cancel, progress);
  return run.Supervise(child.value(), started, started_wall);
}

Result<ChildOutcome> RunChild(const ChildSpec& spec, const CancelToken& cancel,
                              const ProgressCallback& progress) {
  std::unique_ptr<ProcessEnv> env = NewPosixProcessEnv();
  return Supervisor(env.get()).Run(spec, cancel, progress);
}

Status OutcomeStatus(const ChildOutcome& outcome) {
  const std::string cleanup = JoinCleanupErrors(outcome);
  if (!outcome.status.ok()) {
    return Status::Error(outcome.status.code(), outcome.status.message() + cleanup);
  }
  if (outcome.term_signal.has_value()) {
    return Status::Error(kChildExitFailed, "child killed by signal " +
                                               std::to_string(*outcome.term_signal) + cleanup);
  }
  if (!outcome.exit_code.has_value()) {
    return Status::Error(kChildExitFailed, "child exit status unknown" + cleanup);
  }
  if (*outcome.exit_code != 0) {
    return Status::Error(kChildExitFailed,
                         "child exited with code " + std::to_string(*outcome.exit_code) + cleanup);
  }
  if (!cleanup.empty()) {
    return Status::Error(kChildExitFailed,
                         "child exited with code 0, but its cleanup failed" + cleanup);
  }
  return Status::Ok();
}

}  // namespace pi_fusion::process
