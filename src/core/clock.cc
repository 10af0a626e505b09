#include "core/clock.h"

#include <thread>

namespace pi_fusion {
namespace {

class RealClock : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
  WallTimePoint WallNow() const override { return std::chrono::system_clock::now(); }
  void SleepFor(std::chrono::milliseconds duration) const override {
    std::this_thread::sleep_for(duration);
  }
};

}  // namespace

const Clock& SystemClock() {
  static const RealClock clock;
  return clock;
}

}  // namespace pi_fusion
