// The resource limits `pi-fusion fetch` puts on itself before it parses any input: CPU time
// 100 s, address space 1 GiB, no core file. Fetching and HTML parsing of untrusted pages happen
// in this process, so a runaway parser or a decoder bug costs one fetch, never the caller; the
// limits are applied here rather than by whoever spawns the process because posix_spawn cannot set
// them, and so that every way of running the fetcher gets them. Soft and hard limits are set
// alike, so the process cannot raise them again; a lower existing hard limit is kept.
// Builds with AddressSanitizer skip the address-space limit (its shadow memory alone exceeds it).
#pragma once

#include <sys/resource.h>

#include <array>

#include "pi_fusion/status.h"

namespace pi_fusion::cli {

struct FetchRlimit {
  int resource;  // RLIMIT_*
  rlim_t value;
  const char* name;
};

inline constexpr std::array<FetchRlimit, 3> kFetchRlimits = {{
    {RLIMIT_CPU, 100, "CPU time"},
    {RLIMIT_AS, rlim_t{1} << 30, "address space"},
    {RLIMIT_CORE, 0, "core file size"},
}};

// Error code "internal_error" naming the limit that could not be set.
Status ApplyFetchRlimits();

}  // namespace pi_fusion::cli
