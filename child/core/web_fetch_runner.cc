#include "child/core/web_fetch_runner.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <utility>

#include "core/error_codes.h"
#include "process/supervisor.h"

namespace pi_fusion::child {

FetchProcessRunner NewFetchProcessRunner(std::string cwd) {
  return [cwd = std::move(cwd)](const std::vector<std::string>& argv,
                                const process::CancelToken& cancel) -> Result<FetchProcessResult> {
    process::ChildSpec spec;
    spec.argv = argv;
    spec.cwd = cwd;
    spec.limits.stdout_cap = kFetchProcessStdoutCap;
    spec.limits.stderr_cap = 64 * 1024;
    spec.limits.wall = kFetchProcessWall;
    spec.limits.idle = kFetchProcessWall;
    spec.limits.term_grace = std::chrono::milliseconds(1000);
    Result<process::ChildOutcome> outcome = process::RunChild(spec, cancel);
    if (!outcome.ok()) return outcome.status();
    FetchProcessResult result;
    result.exit_code = outcome->exit_code;
    result.term_signal = outcome->term_signal;
    result.stdout_bytes = std::move(outcome->stdout_bytes);
    result.status = outcome->status;
    return result;
  };
}

bool IsExecutableFile(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

Result<std::string> LocatePiFusion(const std::string& library_path,
                                   const ExecutableProbe& is_executable) {
  const std::filesystem::path library(library_path);
  // A relative path would be resolved against the working directory: the user's project.
  if (!library.is_absolute()) {
    return Status::Error(kConfigInvalid,
                         "pi-fusion child: cannot find the pi-fusion executable: the child "
                         "library's own path is not absolute ('" +
                             library_path + "')");
  }
  const std::filesystem::path dir = library.parent_path();
  const std::string beside = (dir / "pi-fusion").string();
  const std::string in_bin = (dir.parent_path() / "bin" / "pi-fusion").string();
  for (const std::string& candidate : {beside, in_bin}) {
    if (is_executable(candidate)) return candidate;
  }
  return Status::Error(kConfigInvalid,
                       "pi-fusion child: fusion_web_fetch needs the pi-fusion executable of this "
                       "build, which is neither at " +
                           beside + " (the npm package) nor at " + in_bin +
                           " (a build tree); reinstall the package or rebuild (scripts/setup)");
}

}  // namespace pi_fusion::child
