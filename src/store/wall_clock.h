// Wall-clock seam for artifact timestamps (created_at, updated_at, attempt start/end). Tests
// inject a fixed clock so artifacts have golden bytes.
// Implementations must be thread-safe (attempts finish on different threads).
#pragma once

#include <chrono>
#include <string>

namespace pi_fusion::store {

class WallClock {
 public:
  using TimePoint = std::chrono::system_clock::time_point;
  virtual ~WallClock() = default;
  virtual TimePoint Now() const = 0;
};

// std::chrono::system_clock. Never null; stateless; lives for the whole program.
const WallClock& SystemWallClock();

// RFC 3339 in UTC with milliseconds: "2025-03-04T05:06:07.089Z" (always 24 bytes for years
// 0000-9999; earlier instants clamp to the epoch).
std::string FormatTimestamp(WallClock::TimePoint when);

// True for exactly the form FormatTimestamp produces.
bool IsTimestamp(const std::string& text);

}  // namespace pi_fusion::store
