#include "store/run_finder.h"

#include <utility>

#include "store/constants.h"
#include "store/run_id.h"

namespace pi_fusion::store {

std::vector<FoundRun> FindRuns(FileSystem& fs, const std::string& cwd) {
  std::vector<FoundRun> runs;
  const std::string root = cwd + "/" + kRunsRoot;
  Result<std::vector<std::string>> sessions = fs.ListDir(root);
  if (!sessions.ok()) return runs;
  for (const std::string& session : *sessions) {
    const std::string session_dir = root + "/" + session;
    Result<FileInfo> kind = fs.Stat(session_dir);  // lstat: a planted link is not a session
    if (!kind.ok() || kind->type != FileType::kDirectory) continue;
    Result<std::vector<std::string>> names = fs.ListDir(session_dir);
    if (!names.ok()) continue;
    for (const std::string& name : *names) {
      if (!IsValidRunId(name)) continue;
      const std::string dir = session_dir + "/" + name;
      Result<FileInfo> info = fs.Stat(dir);
      if (info.ok() && info->type == FileType::kDirectory) runs.push_back({name, dir});
    }
  }
  return runs;
}

std::vector<FoundRun> RunsNamed(std::vector<FoundRun> runs, std::string_view query) {
  std::vector<FoundRun> named;
  if (query.empty()) return named;
  for (FoundRun& run : runs) {
    if (run.run_id == query) return {std::move(run)};
    if (RunIdMatches(run.run_id, query)) named.push_back(std::move(run));
  }
  return named;
}

}  // namespace pi_fusion::store
