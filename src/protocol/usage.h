// Pi's Usage object (pi-ai `Usage`): the closed shape the protocol accepts, and exact summing.
//
//   {input, output, cacheRead, cacheWrite, cacheWrite1h?, reasoning?, totalTokens,
//    cost: {input, output, cacheRead, cacheWrite, total, totalFromProvider?}}
//
// Every number is a finite, non-negative JSON number. Pure code; thread-safe.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::protocol {

// ok, or child_event_invalid naming the first offending key.
Status ValidateUsage(const nlohmann::json& usage);

// True when every token count and cost component is zero (the shape of a retry marker).
// REQUIRES: ValidateUsage(usage).ok()
bool IsZeroUsage(const nlohmann::json& usage);

// Component-wise sum of `usages`, preserving every component: integer components stay integers;
// cacheWrite1h and reasoning are present when any input had them; cost.totalFromProvider is
// present when any input had it and true only when every input said true (a sum that mixes
// catalog estimates with billed totals is an estimate). Zero usage for no inputs.
// REQUIRES: every element passes ValidateUsage.
nlohmann::json SumUsage(const std::vector<nlohmann::json>& usages);

}  // namespace pi_fusion::protocol
