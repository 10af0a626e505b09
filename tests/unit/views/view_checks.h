// What the view tests share: a run id, a start time, a Pi usage object, and the check that what
// the model reads never leaks into what a person sees.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace pi_fusion::views::testing {

inline constexpr int64_t kStart = 1'700'000'000'000;
inline constexpr char kRun[] = "reason-0123456789abcdef0123456789abcdef";

// 14,210 tokens, $0.0123.
inline nlohmann::json Usage() {
  return {
      {"input", 12000},       {"output", 2210},
      {"cacheRead", 0},       {"cacheWrite", 0},
      {"totalTokens", 14210}, {"cost", {{"input", 0.01}, {"output", 0.0023}, {"total", 0.0123}}}};
}

// True when a view carries text meant for the model (hashes, "Do not poll.").
inline bool MentionsModelText(const nlohmann::json& view) {
  const std::string dumped = view.dump();
  return dumped.find("sha256") != std::string::npos ||
         dumped.find("Do not poll") != std::string::npos;
}

}  // namespace pi_fusion::views::testing
