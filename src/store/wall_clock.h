// Artifact timestamps (created_at, updated_at, attempt start/end) from the core time seam's
// WallNow() (core/clock.h). Tests inject a fixed clock so artifacts have golden bytes.
#pragma once

#include <string>

#include "core/clock.h"

namespace pi_fusion::store {

// RFC 3339 in UTC with milliseconds: "2025-03-04T05:06:07.089Z" (always 24 bytes for years
// 0000-9999; earlier instants clamp to the epoch).
std::string FormatTimestamp(Clock::WallTimePoint when);

// True for exactly the form FormatTimestamp produces.
bool IsTimestamp(const std::string& text);

}  // namespace pi_fusion::store
