#include "child/core/web_fetch_runner.h"

#include <cstdlib>
#include <filesystem>
#include <utility>

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

std::string LocatePiFusion(const std::string& library_path) {
  if (const char* bin = std::getenv("PI_FUSION_FETCH_BIN"); bin != nullptr && *bin != '\0') {
    return bin;
  }
  std::filesystem::path lib(library_path);
  return (lib.parent_path().parent_path() / "bin" / "pi-fusion").string();
}

}  // namespace pi_fusion::child
