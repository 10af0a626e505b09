#include "tasks/run_lookup.h"

#include <utility>

#include "store/abandoned_run.h"
#include "store/run_finder.h"
#include "store/verify.h"
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

Result<std::optional<TaskInfo>> FindRunOnDisk(FileSystem& fs, const Clock& clock,
                                              const std::string& cwd, const std::string& query) {
  // The id, a prefix of it or the short id the views show, among every session's runs.
  const std::vector<store::FoundRun> found = store::RunsNamed(store::FindRuns(fs, cwd), query);
  if (found.size() > 1) {
    std::vector<std::string> ids;
    for (const store::FoundRun& run : found) ids.push_back(run.run_id);
    return TaskLookup::Missed(LookupMiss::kAmbiguousPrefix, query, ids).status();
  }
  if (found.empty()) return std::optional<TaskInfo>();
  const store::FoundRun& run = found.front();
  // A run whose host died is finalized (host_ended) before anyone reads it; a run whose owner
  // still holds its lock is running in another Pi.
  Result<bool> finalized = store::FinalizeIfAbandoned(fs, clock, run.dir);
  if (!finalized.ok()) return finalized.status();
  Result<store::Manifest> manifest = store::ReadManifest(fs, run.dir);
  if (!manifest.ok()) return manifest.status();
  return TaskOfRun(RunStateOf(fs, run.dir, run.run_id, std::move(manifest).value()));
}

Result<TaskInfo> ResolveTask(const TaskRegistry& live, const std::vector<TaskInfo>& earlier,
                             FileSystem& fs, const Clock& clock, const std::string& cwd,
                             const std::string& id) {
  TaskLookup task = ResolveLiveOrEarlier(live, earlier, id);
  if (task.miss() != LookupMiss::kUnknownId || cwd.empty()) return task;
  // A run from an earlier Pi process is still retrievable: its artifacts are on disk.
  Result<std::optional<TaskInfo>> on_disk = FindRunOnDisk(fs, clock, cwd, id);
  if (!on_disk.ok()) return on_disk.status();
  if (!on_disk->has_value()) return task;
  return std::move(on_disk).value().value();
}

}  // namespace pi_fusion::tasks
