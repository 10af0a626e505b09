#include "store/wall_clock.h"

#include "core/timestamp.h"

namespace pi_fusion::store {

std::string FormatTimestamp(Clock::WallTimePoint when) { return FormatUtcMillis(when); }

bool IsTimestamp(const std::string& text) { return IsUtcMillis(text); }

}  // namespace pi_fusion::store
