#include "tasks/launched_runs.h"

#include "store/run_id.h"
#include "tasks/session_runs.h"

namespace pi_fusion::tasks {

std::optional<TaskInfo> LaunchedRuns::Ended(const TaskRegistry& live, FileSystem& fs,
                                            const std::string& run_id, const std::string& run_dir,
                                            int64_t now_ms) {
  if (!store::IsValidRunId(run_id)) return std::nullopt;
  if (TaskLookup task = live.Resolve(run_id); task.ok() && task->id == run_id) {
    if (task->state == TaskState::kRunning) return std::nullopt;
    return *task;
  }
  auto it = seen_.find(run_id);
  if (it != seen_.end() && (it->second.ended || now_ms - it->second.checked_ms < kRecheckMs)) {
    return it->second.ended;
  }
  // The directory must be the run's own (its name is the id), as the receipt recorded it.
  const bool own_dir = run_dir.size() > run_id.size() && run_dir.ends_with("/" + run_id);
  std::optional<TaskInfo> run = own_dir ? RunOnDisk(fs, run_dir, run_id) : std::nullopt;
  Seen& seen = seen_[run_id];
  seen.checked_ms = now_ms;
  seen.ended = run && run->state != TaskState::kRunning ? run : std::nullopt;
  return seen.ended;
}

}  // namespace pi_fusion::tasks
