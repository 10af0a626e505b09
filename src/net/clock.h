// Time seam for the fetcher: a Clock interface (real: steady_clock) and the one Deadline that
// spans a whole fetch. Tests inject a fake Clock to expire deadlines without sleeping.
// Clock implementations must be thread-safe; a Deadline is a value (thread-compatible).
#pragma once

#include <chrono>

namespace pi_fusion::net {

class Clock {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

// The process-wide steady clock. Never null; lives for the whole program.
const Clock& SystemClock();

class Deadline {
 public:
  // REQUIRES: `clock` outlives the Deadline.
  Deadline(const Clock& clock, std::chrono::milliseconds budget)
      : clock_(&clock), at_(clock.Now() + budget) {}

  bool Expired() const { return clock_->Now() >= at_; }
  // Time left, never negative.
  std::chrono::milliseconds Remaining() const {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(at_ - clock_->Now());
    return left.count() > 0 ? left : std::chrono::milliseconds(0);
  }

 private:
  const Clock* clock_;
  Clock::TimePoint at_;
};

}  // namespace pi_fusion::net
