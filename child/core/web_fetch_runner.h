// The production FetchProcessRunner: `pi-fusion fetch` as a supervised process of its own
// (src/process), with an empty environment (no credentials or proxies reach it), the caller's
// working directory, stdout capped at kFetchProcessStdoutCap and a wall limit of
// kFetchProcessWall. The fetcher sets its own rlimits (CPU 100 s, 1 GiB, no core).
#pragma once

#include <string>

#include "child/core/web_fetch.h"

namespace pi_fusion::child {

FetchProcessRunner NewFetchProcessRunner(std::string cwd);

// The pi-fusion executable beside a library at `library_path` (`<dir>/../bin/pi-fusion`), or the
// value of PI_FUSION_FETCH_BIN when that is set and non-empty.
std::string LocatePiFusion(const std::string& library_path);

}  // namespace pi_fusion::child
