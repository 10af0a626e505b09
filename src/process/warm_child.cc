#include "process/warm_child.h"

#include <signal.h>

#include "process/child_run.h"
#include "process/exit_wait.h"

namespace pi_fusion::process {

using std::chrono::milliseconds;

WarmChild::WarmChild(ProcessEnv* env, std::unique_ptr<ProcessEnv> owned, SpawnedProcess child,
                     std::chrono::system_clock::time_point started_wall)
    : env_(env), owned_env_(std::move(owned)), child_(child), started_wall_(started_wall) {}

Result<std::unique_ptr<WarmChild>> WarmChild::Start(ProcessEnv* env, const ChildSpec& spec) {
  SpawnRequest request;
  request.argv = spec.argv;
  request.env = spec.env;
  request.cwd = spec.cwd;
  request.search_path = spec.search_path;
  request.die_with_parent = spec.die_with_parent;  // through the same spawner thread as cold ones
  request.inherit_fds = spec.inherit_fds;
  const auto started_wall = env->clock().WallNow();
  Result<SpawnedProcess> child = env->Spawn(request);
  if (!child.ok()) return child.status();
  return std::unique_ptr<WarmChild>(new WarmChild(env, nullptr, *child, started_wall));
}

Result<std::unique_ptr<WarmChild>> WarmChild::StartPosix(const ChildSpec& spec) {
  std::unique_ptr<ProcessEnv> env = NewPosixProcessEnv();
  Result<std::unique_ptr<WarmChild>> child = Start(env.get(), spec);
  if (child.ok()) (*child)->owned_env_ = std::move(env);
  return child;
}

WarmChild::~WarmChild() { End(); }

std::optional<std::string> WarmChild::EndedBeforeInput() {
  if (done_ || ended_) return ended_;
  Result<std::optional<ExitStatus>> exit = env_->CheckExit(child_.pid, /*reap=*/false);
  if (!exit.ok()) {
    ended_ = "exit status unknown: " + exit.status().message();
  } else if (exit->has_value()) {
    ended_ = DescribeExit(**exit);
  }
  return ended_;
}

ChildOutcome WarmChild::Feed(const ChildSpec& spec, const CancelToken& cancel,
                             const ProgressCallback& progress) {
  done_ = true;
  ChildRun run(env_, spec, cancel, progress);
  // Timed from the input: the outcome's start and duration, the wall limit and the idle watchdog.
  return run.Supervise(child_, env_->clock().Now(), env_->clock().WallNow());
}

std::string WarmChild::End(milliseconds kill_wait) {
  if (done_) return ended_.value_or("ended");
  std::string how = EndedBeforeInput().value_or("");
  done_ = true;
  if (how.empty()) {
    // Never fed, so it made no model request: nothing is lost by skipping the TERM grace.
    env_->KillGroup(child_.pid, SIGKILL);
    how = "stopped before its input";
  }
  const bool exited = WaitForExit(env_, child_.pid, kill_wait);
  // Sweep the group while the leader is an unreaped zombie, so its pgid cannot be reused.
  env_->KillGroup(child_.pid, SIGKILL);
  if (exited) {
    // Only to reap the zombie: how it exited does not change what is reported, and a child
    // that cannot be reaped (already reaped) leaves nothing to do.
    (void)env_->CheckExit(child_.pid, /*reap=*/true);
  } else {
    how += " (not reaped within " + std::to_string(kill_wait.count()) + " ms)";
  }
  CloseAll();
  ended_ = how;
  return how;
}

void WarmChild::CloseAll() {
  for (int* fd : {&child_.stdin_fd, &child_.stdout_fd, &child_.stderr_fd}) {
    if (*fd >= 0) env_->Close(*fd);
    *fd = -1;
  }
}

}  // namespace pi_fusion::process
