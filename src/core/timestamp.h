// The one timestamp form of every artifact: RFC 3339 in UTC with milliseconds,
// "2025-03-04T05:06:07.089Z". The run store stamps manifests with it (store/wall_clock.h) and the
// child stamps each tool call's start in its audit journal (protocol/tool_audit.h), so both sides
// of a run write and check the same 24 bytes. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/clock.h"

namespace pi_fusion {

// Always 24 bytes for years 0000-9999; earlier instants clamp to the epoch.
std::string FormatUtcMillis(Clock::WallTimePoint when);

// True for exactly the form FormatUtcMillis produces.
bool IsUtcMillis(std::string_view text);

}  // namespace pi_fusion
