#include "tasks/task_registry.h"

#include "core/error_codes.h"

namespace pi_fusion::tasks {

std::string_view TaskStateName(TaskState state) {
  switch (state) {
    case TaskState::kRunning:
      return "running";
    case TaskState::kCompleted:
      return "completed";
    case TaskState::kFailed:
      return "failed";
    case TaskState::kKilled:
      return "killed";
  }
  return "unknown";
}

void TaskRegistry::Add(TaskInfo task, process::CancelToken cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id = task.id;
  if (tasks_.count(id) == 0) order_.push_back(id);
  const int64_t started_ms = task.progress.started_ms;
  tasks_[id] = Entry{std::move(task), std::move(cancel), ProgressTracker(started_ms)};
}

Result<const TaskRegistry::Entry*> TaskRegistry::FindLocked(std::string_view id_or_prefix) const {
  if (id_or_prefix.empty()) return Status::Error(kInvalidArguments, kTaskIdRequired);
  auto exact = tasks_.find(std::string(id_or_prefix));
  if (exact != tasks_.end()) return &exact->second;
  std::vector<const Entry*> matches;
  for (const std::string& id : order_) {
    if (id.rfind(id_or_prefix, 0) == 0) matches.push_back(&tasks_.at(id));
  }
  if (matches.empty()) {
    return Status::Error(kInvalidArguments,
                         "Unknown background task ID: " + std::string(id_or_prefix));
  }
  if (matches.size() > 1) {
    std::string names;
    for (const Entry* e : matches) names += (names.empty() ? "" : ", ") + e->info.id;
    return Status::Error(kInvalidArguments,
                         "Ambiguous background task ID prefix: " + std::string(id_or_prefix) +
                             " (matches " + names + ")");
  }
  return matches.front();
}

Result<TaskInfo> TaskRegistry::Resolve(std::string_view id_or_prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  Result<const Entry*> entry = FindLocked(id_or_prefix);
  if (!entry.ok()) return entry.status();
  return (*entry)->info;
}

std::vector<TaskInfo> TaskRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TaskInfo> out;
  for (const std::string& id : order_) out.push_back(tasks_.at(id).info);
  return out;
}

void TaskRegistry::Progress(const std::string& id, const workflow::ProgressUpdate& update,
                            int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  Entry& entry = it->second;
  entry.tracker.Apply(update, now_ms);
  entry.info.progress = entry.tracker.snapshot();
  entry.info.last_progress = entry.info.label + ": " + update.line;
}

void TaskRegistry::Finish(const std::string& id, TaskState state, const std::string& text) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  it->second.info.state = state;
  it->second.info.terminal_text = text;
}

Result<TaskInfo> TaskRegistry::Kill(std::string_view id_or_prefix, CancelSource source) {
  std::lock_guard<std::mutex> lock(mu_);
  Result<const Entry*> entry = FindLocked(id_or_prefix);
  if (!entry.ok()) return entry.status();
  if ((*entry)->info.state != TaskState::kRunning) {
    return Status::Error(kInvalidArguments,
                         "Background task " + (*entry)->info.id + " is not running");
  }
  Entry& running = tasks_.at((*entry)->info.id);
  if (running.info.cancelled_by == CancelSource::kUnknown) running.info.cancelled_by = source;
  running.cancel.Cancel();
  return running.info;
}

void TaskRegistry::CancelAll(CancelSource source) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, entry] : tasks_) {
    if (entry.info.state != TaskState::kRunning) continue;
    if (entry.info.cancelled_by == CancelSource::kUnknown) entry.info.cancelled_by = source;
    entry.cancel.Cancel();
  }
}

size_t TaskRegistry::RunningCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [id, entry] : tasks_) n += entry.info.state == TaskState::kRunning;
  return n;
}

std::string TaskDescription(std::string_view text) {
  std::string collapsed;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      space = !collapsed.empty();
      continue;
    }
    if (space) collapsed.push_back(' ');
    space = false;
    collapsed.push_back(c);
  }
  size_t chars = 0;
  for (size_t i = 0; i < collapsed.size(); ++i) {
    if ((static_cast<unsigned char>(collapsed[i]) & 0xc0) == 0x80) continue;
    if (++chars > 240) return collapsed.substr(0, i);
  }
  return collapsed;
}

}  // namespace pi_fusion::tasks
