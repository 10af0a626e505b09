#include "core/timestamp.h"

#include <cstdio>
#include <ctime>

namespace pi_fusion {

std::string FormatUtcMillis(Clock::WallTimePoint when) {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  long long ms = duration_cast<milliseconds>(when.time_since_epoch()).count();
  if (ms < 0) ms = 0;
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

// "dddd-dd-ddTdd:dd:dd.dddZ": digits where the pattern has 'd', the pattern's byte elsewhere.
bool IsUtcMillis(std::string_view text) {
  constexpr std::string_view kPattern = "dddd-dd-ddTdd:dd:dd.dddZ";
  if (text.size() != kPattern.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kPattern[i] == 'd' ? !digit : text[i] != kPattern[i]) return false;
  }
  return true;
}

}  // namespace pi_fusion
