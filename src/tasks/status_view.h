// bg_status: this session's tasks (the live ones of this process and the earlier ones read from
// disk) as the tool's text and `details.tasks` rows, and the task lookup bg_status and bg_result
// share. Live progress exists only for runs of this process; earlier ones carry a note instead.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "tasks/task_registry.h"

namespace pi_fusion::tasks {

// `earlier` without the runs `live` knows (a run of this process is never listed twice).
std::vector<TaskInfo> NotLive(const TaskRegistry& live, std::vector<TaskInfo> earlier);

// The registry's task, else one of `earlier` (exact id or unambiguous prefix). An ambiguous
// prefix among the live tasks is that error; an unknown id in both is the registry's error.
TaskLookup ResolveLiveOrEarlier(const TaskRegistry& live, const std::vector<TaskInfo>& earlier,
                                std::string_view id_or_prefix);

// The note of a bg_status row whose run's Pi session was never saved, and how many such runs
// bg_status lists at most (the newest).
inline constexpr char kUnsavedSessionNote[] = "from a session Pi did not save";
inline constexpr size_t kUnsavedSessionRunsListed = 5;

struct StatusView {
  std::string text;
  nlohmann::json details;  // {tasks: [{task_id, state, workflow, label, description, question,
                           //           artifact_dir, progress|null[, note]}]}
};
// The rows of `tasks` (a task is live when `live` resolves it) at `now_ms`.
StatusView BuildStatusView(const TaskRegistry& live, const std::vector<TaskInfo>& tasks,
                           int64_t now_ms);

}  // namespace pi_fusion::tasks
