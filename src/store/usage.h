// Pi's Usage object (pi-ai `Usage`) as the store records it, per attempt and cumulatively:
//
//   {input, output, cacheRead, cacheWrite, cacheWrite1h?, reasoning?, totalTokens,
//    cost: {input, output, cacheRead, cacheWrite, total, totalFromProvider?}}
//
// cacheWrite1h and reasoning are *subsets* reported by some providers (one-hour cache writes,
// reasoning tokens); they are kept verbatim and never added to totalTokens. A sum keeps an
// optional field only when some input had it, so a run whose providers never reported reasoning
// does not claim "reasoning: 0".
//
// Values; thread-compatible.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::store {

struct UsageCost {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;
  double total = 0;
  // Pi's flag that `total` was billed by the provider rather than estimated from the catalog.
  std::optional<bool> total_from_provider;

  bool operator==(const UsageCost&) const = default;
};

struct Usage {
  uint64_t input = 0;
  uint64_t output = 0;
  uint64_t cache_read = 0;
  uint64_t cache_write = 0;
  std::optional<uint64_t> cache_write_1h;
  std::optional<uint64_t> reasoning;
  uint64_t total_tokens = 0;
  UsageCost cost;

  bool operator==(const Usage&) const = default;
};

// Parses a closed Usage object: token counts are non-negative integers (an integral float such
// as 12.0 is accepted), costs finite non-negative numbers. kArtifactError naming `where`.
Result<Usage> UsageFromJson(const nlohmann::json& value, std::string_view where);

// The JSON form, with Pi's camelCase keys; optional fields only when present.
nlohmann::json UsageToJson(const Usage& usage);

// Component-wise sum. cacheWrite1h / reasoning are present when any input had them.
// cost.totalFromProvider is present when any input had it, and true only when every input said
// true (a sum mixing estimates with billed totals is an estimate). All zero for no inputs.
Usage SumUsage(const std::vector<Usage>& usages);

}  // namespace pi_fusion::store
