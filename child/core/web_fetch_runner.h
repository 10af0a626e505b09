// The production FetchProcessRunner: `pi-fusion fetch` as a supervised process of its own
// (src/process), with an empty environment (no credentials or proxies reach it), the caller's
// working directory, stdout capped at kFetchProcessStdoutCap and a wall limit of
// kFetchProcessWall. The fetcher sets its own rlimits (CPU 100 s, 1 GiB, no core).
#pragma once

#include <functional>
#include <string>

#include "child/core/web_fetch.h"
#include "pi_fusion/status.h"

namespace pi_fusion::child {

FetchProcessRunner NewFetchProcessRunner(std::string cwd);

// True when `path` names an executable regular file (following symlinks: npm links bins).
using ExecutableProbe = std::function<bool(const std::string& path)>;
// stat(2) + access(X_OK).
bool IsExecutableFile(const std::string& path);

// The `pi-fusion` executable that belongs to the child library at `library_path`, looked up in
// exactly two places, in this order, the first executable regular file winning:
//   <dir of the library>/pi-fusion         the npm package: prebuilds/<platform>/ holds all three
//   <dir of the library>/../bin/pi-fusion  a build tree: build/<preset>/lib and build/<preset>/bin
// Never PATH, the working directory or the environment: the fetcher is the hardened process that
// decides what a research candidate may reach, so no variable may swap it (tests construct
// WebFetchTool with the path they want instead). Error config_invalid naming both places.
Result<std::string> LocatePiFusion(const std::string& library_path,
                                   const ExecutableProbe& is_executable = IsExecutableFile);

}  // namespace pi_fusion::child
