// The time seam every layer takes: Now() never goes backwards (deadlines, timeouts, durations),
// WallNow() is calendar time (timestamps only, never deadlines), SleepFor() blocks the calling
// thread. Tests inject a fake to expire a deadline or stamp a fixed time without sleeping; a fake
// that needs one of the three may give the others trivial bodies.
// Implementations must be thread-safe.
#pragma once

#include <chrono>

namespace pi_fusion {

class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  using WallTimePoint = std::chrono::system_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
  virtual WallTimePoint WallNow() const = 0;
  virtual void SleepFor(std::chrono::milliseconds duration) const = 0;
};

// steady_clock, system_clock and std::this_thread::sleep_for. Never null; stateless; lives for
// the whole program.
const Clock& SystemClock();

}  // namespace pi_fusion
