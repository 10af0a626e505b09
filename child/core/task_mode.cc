#include "child/core/task_mode.h"

#include <utility>

#include "core/env_vars.h"
#include "core/error_codes.h"

namespace pi_fusion::child {

Result<int> TaskDescriptor(std::string_view value) {
  const Status invalid =
      Status::Error(kConfigInvalid, "pi-fusion child: " + std::string(env_vars::kTaskFd) +
                                        " must name the task pipe's descriptor (3 to 1024), not '" +
                                        std::string(value.substr(0, 40)) + "'");
  if (value.empty() || value.size() > 4) return invalid;
  int fd = 0;
  for (char c : value) {
    if (c < '0' || c > '9') return invalid;
    fd = fd * 10 + (c - '0');
  }
  if (fd < 3 || fd > 1024) return invalid;
  return fd;
}

EnvLookup TaskEnvLookup(pooled_task::Task task, EnvLookup process) {
  return [task = std::move(task),
          process = std::move(process)](std::string_view name) -> std::optional<std::string> {
    if (name == env_vars::kRequestSignalFd) return std::nullopt;
    if (pooled_task::IsTaskVariable(name)) {
      auto it = task.vars.find(std::string(name));
      if (it == task.vars.end()) return std::nullopt;
      return it->second;
    }
    return process(name);
  };
}

int TaskExitCode(bool failed, const std::optional<std::string>& final_stop_reason) {
  if (failed) return 1;
  if (!final_stop_reason) return 0;
  const std::string& reason = *final_stop_reason;
  return reason == "error" || reason == "aborted" || reason == "length" ? 1 : 0;
}

}  // namespace pi_fusion::child
