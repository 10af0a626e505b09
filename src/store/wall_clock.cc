#include "store/wall_clock.h"

#include <cstdio>
#include <ctime>
#include <regex>

namespace pi_fusion::store {
std::string FormatTimestamp(Clock::WallTimePoint when) {
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

bool IsTimestamp(const std::string& text) {
  static const std::regex kForm(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$)");
  return std::regex_match(text, kForm);
}

}  // namespace pi_fusion::store
