#include "tasks/task_registry.h"

#include "core/error_codes.h"
#include "core/name_table.h"
#include "store/run_id.h"

namespace pi_fusion::tasks {

namespace {

constexpr NameTable<TaskState, 4> kTaskStateNames = {
    {TaskState::kRunning, TaskState::kCompleted, TaskState::kFailed, TaskState::kKilled},
    {"running", "completed", "failed", "killed"}};

}  // namespace

std::string_view TaskStateName(TaskState state) { return kTaskStateNames.Name(state); }

std::optional<TaskState> ParseTaskState(std::string_view name) {
  return kTaskStateNames.Parse(name);
}

void TaskRegistry::Add(TaskInfo task, process::CancelToken cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string id = task.id;
  if (tasks_.count(id) == 0) order_.push_back(id);
  const int64_t started_ms = task.progress.started_ms;
  tasks_[id] = Entry{std::move(task), std::move(cancel), ProgressTracker(started_ms)};
}

TaskLookup TaskLookup::Missed(LookupMiss miss, std::string_view id_or_prefix,
                              const std::vector<std::string>& matches) {
  std::string text = kTaskIdRequired;
  if (miss == LookupMiss::kUnknownId) {
    text = "Unknown background task ID: " + std::string(id_or_prefix);
  } else if (miss == LookupMiss::kAmbiguousPrefix) {
    std::string names;
    for (const std::string& id : matches) names += (names.empty() ? "" : ", ") + id;
    text = "Ambiguous background task ID prefix: " + std::string(id_or_prefix) + " (matches " +
           names + ")";
  } else {
    miss = LookupMiss::kIdRequired;
  }
  return {Status::Error(kInvalidArguments, std::move(text)), miss};
}

TaskLookup TaskRegistry::LookupLocked(std::string_view id_or_prefix) const {
  if (id_or_prefix.empty()) return TaskLookup::Missed(LookupMiss::kIdRequired, id_or_prefix);
  auto exact = tasks_.find(std::string(id_or_prefix));
  if (exact != tasks_.end()) return exact->second.info;
  std::vector<std::string> matches;
  for (const std::string& id : order_) {
    if (store::RunIdMatches(id, id_or_prefix)) matches.push_back(id);
  }
  if (matches.empty()) return TaskLookup::Missed(LookupMiss::kUnknownId, id_or_prefix);
  if (matches.size() > 1) {
    return TaskLookup::Missed(LookupMiss::kAmbiguousPrefix, id_or_prefix, matches);
  }
  return tasks_.at(matches.front()).info;
}

TaskLookup TaskRegistry::Resolve(std::string_view id_or_prefix) const {
  std::lock_guard<std::mutex> lock(mu_);
  return LookupLocked(id_or_prefix);
}

std::vector<TaskInfo> TaskRegistry::List() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<TaskInfo> out;
  for (const std::string& id : order_) out.push_back(tasks_.at(id).info);
  return out;
}

void TaskRegistry::Progress(const std::string& id, const run::ProgressUpdate& update,
                            int64_t now_ms) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  Entry& entry = it->second;
  entry.tracker.Apply(update, now_ms);
  entry.info.progress = entry.tracker.snapshot();
  entry.info.last_progress = entry.info.label + ": " + update.line;
}

void TaskRegistry::Activity(const std::string& id, const run::ChildActivity& activity) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  it->second.tracker.Note(activity);
  it->second.info.progress = it->second.tracker.snapshot();
}

void TaskRegistry::Finish(const std::string& id, TaskState state, const std::string& text,
                          const std::string& failure, const std::string& answer_note) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = tasks_.find(id);
  if (it == tasks_.end()) return;
  it->second.info.state = state;
  it->second.info.terminal_text = text;
  it->second.info.failure = failure;
  it->second.info.answer_note = answer_note;
}

Result<TaskInfo> TaskRegistry::Kill(std::string_view id_or_prefix, CancelSource source) {
  std::lock_guard<std::mutex> lock(mu_);
  TaskLookup found = LookupLocked(id_or_prefix);
  if (!found.ok()) return found.status();
  Entry& running = tasks_.at(found->id);
  if (running.info.state != TaskState::kRunning) {
    return Status::Error(kInvalidArguments,
                         "Background task " + running.info.id + " is not running");
  }
  if (running.info.cancelled_by == CancelSource::kUnknown) running.info.cancelled_by = source;
  running.cancel.Cancel(CancelSourceCause(source));  // the run records it (run/cancel_cause.h)
  return running.info;
}

void TaskRegistry::CancelAll(CancelSource source) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [id, entry] : tasks_) {
    if (entry.info.state != TaskState::kRunning) continue;
    if (entry.info.cancelled_by == CancelSource::kUnknown) entry.info.cancelled_by = source;
    entry.cancel.Cancel(CancelSourceCause(source));
  }
}

size_t TaskRegistry::RunningCount() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [id, entry] : tasks_) n += entry.info.state == TaskState::kRunning;
  return n;
}

std::string TaskLabel(std::string_view workflow) { return "fusion " + std::string(workflow); }

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
    if (++chars > kDescriptionMaxChars) return collapsed.substr(0, i);
  }
  return collapsed;
}

}  // namespace pi_fusion::tasks
