#include "tasks/session_runs.h"

#include <algorithm>

#include "store/owner_lock.h"
#include "store/run_id.h"
#include "store/run_paths.h"
#include "store/verify.h"

namespace pi_fusion::tasks {
namespace {

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The request's text as a description, from canonical-input.json (empty when unreadable).
std::string DescriptionOf(FileSystem& fs, const std::string& dir) {
  Result<std::string> bytes = fs.ReadFile(dir + "/canonical-input.json");
  if (!bytes.ok()) return "";
  const nlohmann::json input = nlohmann::json::parse(*bytes, nullptr, false);
  if (!input.is_object() || !input.contains("request")) return "";
  return TaskDescription(input["request"].dump());
}

std::optional<TaskInfo> RunOnDisk(FileSystem& fs, const std::string& dir, const std::string& id) {
  Result<store::Manifest> manifest = store::ReadManifest(fs, dir);
  if (!manifest.ok()) return std::nullopt;
  TaskInfo task;
  task.id = id;
  task.workflow = manifest->workflow;
  task.label = "fusion " + manifest->workflow;
  task.artifact_dir = dir;
  task.source = std::string(store::RunSourceName(manifest->source));
  task.description = DescriptionOf(fs, dir);
  switch (manifest->state) {
    case store::RunState::kCompleted:
      task.state = TaskState::kCompleted;
      break;
    case store::RunState::kCancelled:
      task.state = TaskState::kKilled;
      break;
    case store::RunState::kFailed:
      task.state = TaskState::kFailed;
      break;
    default: {
      Result<bool> alive = store::OwnerAlive(fs, dir);
      if (!alive.ok() || *alive) {
        // Another live Pi process owns it (or liveness cannot be known): never call it abandoned.
        task.state = TaskState::kRunning;
        task.terminal_text = "owned by another Pi process";
      } else {
        task.state = TaskState::kFailed;
        task.terminal_text = "interrupted: its Pi process ended before the run did (state " +
                             std::string(store::RunStateName(manifest->state)) + ")";
      }
    }
  }
  return task;
}

}  // namespace

std::vector<TaskInfo> SessionRunsOnDisk(FileSystem& fs, const std::string& cwd,
                                        std::string_view session_id, long own_pid) {
  const std::string root = cwd + "/.pi/fusion";
  const std::string prefix = store::SanitizeSessionId(session_id) + "-";
  std::vector<std::pair<std::string, TaskInfo>> found;  // created_at-ish order key, task
  Result<std::vector<std::string>> sessions = fs.ListDir(root);
  if (!sessions.ok()) return {};
  for (const std::string& name : *sessions) {
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string pid = name.substr(prefix.size());
    if (!AllDigits(pid) || pid == std::to_string(own_pid)) continue;
    const std::string session_dir = root + "/" + name;
    Result<std::vector<std::string>> runs = fs.ListDir(session_dir);
    if (!runs.ok()) continue;
    for (const std::string& id : *runs) {
      if (!store::IsValidRunId(id)) continue;
      const std::string dir = session_dir + "/" + id;
      std::optional<TaskInfo> task = RunOnDisk(fs, dir, id);
      if (!task) continue;
      Result<store::Manifest> manifest = store::ReadManifest(fs, dir);
      found.emplace_back(manifest.ok() ? manifest->created_at : "", std::move(*task));
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<TaskInfo> out;
  for (auto& [key, task] : found) out.push_back(std::move(task));
  return out;
}

Result<TaskInfo> ResolveAmong(const std::vector<TaskInfo>& runs, std::string_view id_or_prefix) {
  if (id_or_prefix.empty()) return Status::Error("invalid_arguments", kTaskIdRequired);
  std::vector<const TaskInfo*> matches;
  for (const TaskInfo& run : runs) {
    if (run.id == id_or_prefix) return run;
    if (run.id.rfind(id_or_prefix, 0) == 0) matches.push_back(&run);
  }
  if (matches.empty()) {
    return Status::Error("invalid_arguments",
                         "Unknown background task ID: " + std::string(id_or_prefix));
  }
  if (matches.size() > 1) {
    std::string names;
    for (const TaskInfo* t : matches) names += (names.empty() ? "" : ", ") + t->id;
    return Status::Error("invalid_arguments",
                         "Ambiguous background task ID prefix: " + std::string(id_or_prefix) +
                             " (matches " + names + ")");
  }
  return *matches.front();
}

}  // namespace pi_fusion::tasks
