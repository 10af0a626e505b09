#include "tasks/status_view.h"

#include <algorithm>

#include "tasks/resume_hint.h"
#include "tasks/session_runs.h"

namespace pi_fusion::tasks {

std::vector<TaskInfo> NotLive(const TaskRegistry& live, std::vector<TaskInfo> earlier) {
  std::erase_if(earlier, [&](const TaskInfo& run) { return live.Resolve(run.id).ok(); });
  return earlier;
}

TaskLookup ResolveLiveOrEarlier(const TaskRegistry& live, const std::vector<TaskInfo>& earlier,
                                std::string_view id_or_prefix) {
  TaskLookup task = live.Resolve(id_or_prefix);
  if (task.miss() != LookupMiss::kUnknownId) return task;
  TaskLookup found = ResolveAmong(earlier, id_or_prefix);
  if (found.miss() != LookupMiss::kUnknownId) return found;
  return task;
}

namespace {

// The completed run that resumed `task`: as read from disk, else one of `tasks` (a resume this
// process ran); "" when none did.
std::string ResumedAs(const TaskRegistry& live, const TaskInfo& task,
                      const std::vector<TaskInfo>& tasks) {
  if (!task.resumed_as.empty()) return task.resumed_as;
  for (const TaskInfo& other : tasks) {
    if (other.resumed_from != task.id) continue;
    // A live task's state is the registry's, which is current; the list's copy may be older.
    TaskLookup now = live.Resolve(other.id);
    const TaskState state = now.ok() ? now->state : other.state;
    if (state == TaskState::kCompleted) return other.id;
  }
  return "";
}

}  // namespace

StatusView BuildStatusView(const TaskRegistry& live, const std::vector<TaskInfo>& tasks,
                           int64_t now_ms) {
  if (tasks.empty()) {
    return {"No background tasks in this session.", {{"tasks", nlohmann::json::array()}}};
  }
  StatusView view;
  nlohmann::json rows = nlohmann::json::array();
  for (const TaskInfo& task : tasks) {
    const std::string state_name(TaskStateName(task.state));
    const bool is_live = live.Resolve(task.id).ok();
    const std::string resumed_as =
        task.state == TaskState::kRunning ? "" : ResumedAs(live, task, tasks);
    std::string detail;
    if (is_live && task.state == TaskState::kRunning) {
      detail = StageSummary(task.progress) + ", " + FormatElapsed(task.progress.ElapsedMs(now_ms)) +
               " elapsed";
    } else if (!is_live) {
      detail = std::string(task.unsaved_session ? kUnsavedSessionNote : "earlier Pi process") +
               (task.terminal_text.empty() ? "" : "; " + task.terminal_text);
      // The agent reads this list: resuming is the person's call, so it is named as theirs.
      if (task.resume && resumed_as.empty()) {
        detail += "; the person can resume it with " + ResumeCommand(task.id);
      }
    } else if (task.state == TaskState::kKilled && task.cancelled_by != CancelSource::kUnknown) {
      detail = CancelledText(task.cancelled_by);
    }
    // Its answer exists in the run that resumed it: nobody should pay for it twice.
    if (!resumed_as.empty()) {
      detail += (detail.empty() ? "" : "; ") + std::string("resumed as ") + resumed_as;
    }
    // The text says "cancelled", the word of every view; the details keep the contract's state.
    const std::string shown = task.state == TaskState::kKilled ? "cancelled" : state_name;
    view.text += task.id + "  " + shown + "  " + task.label +
                 (detail.empty() ? "" : "  (" + detail + ")") + "\n";
    nlohmann::json row = {
        {"task_id", task.id},
        {"state", state_name},
        {"workflow", task.workflow},
        {"label", task.label},
        {"description", task.description},
        {"question", task.question},
        {"artifact_dir", task.artifact_dir},
        {"progress", is_live ? ProgressJson(task.progress, task.id, task.workflow, now_ms)
                             : nlohmann::json(nullptr)}};
    if (!detail.empty() && !(is_live && task.state == TaskState::kRunning)) row["note"] = detail;
    rows.push_back(std::move(row));
  }
  view.details = {{"tasks", rows}};
  return view;
}

}  // namespace pi_fusion::tasks
