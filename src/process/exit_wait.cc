#include "process/exit_wait.h"

#include <array>

namespace pi_fusion::process {
namespace {

constexpr std::chrono::milliseconds kExitPollPeriod{10};

}  // namespace

bool WaitForExit(ProcessEnv* env, pid_t pid, std::chrono::milliseconds limit) {
  const int watch = env->OpenExitWatch(pid);
  const auto deadline = env->clock().Now() + limit;
  bool exited = false;
  for (;;) {
    Result<std::optional<ExitStatus>> exit = env->CheckExit(pid, /*reap=*/false);
    exited = !exit.ok() || exit->has_value();
    if (exited || env->clock().Now() >= deadline) break;
    if (watch >= 0) {
      std::array<pollfd, 1> fds{pollfd{watch, POLLIN, 0}};
      env->Poll(fds, limit);
    } else {
      env->clock().SleepFor(kExitPollPeriod);
    }
  }
  if (watch >= 0) env->Close(watch);
  return exited;
}

std::string DescribeExit(const ExitStatus& status) {
  if (status.signal) return "killed by signal " + std::to_string(*status.signal);
  return "exited with code " + std::to_string(status.exit_code.value_or(-1));
}

}  // namespace pi_fusion::process
