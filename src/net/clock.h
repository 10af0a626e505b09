// The one Deadline that spans a whole fetch, on the core time seam (core/clock.h). Tests inject a
// fake Clock to expire deadlines without sleeping. A Deadline is a value (thread-compatible).
#pragma once

#include <chrono>

#include "core/clock.h"

namespace pi_fusion::net {

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
