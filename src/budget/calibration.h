// Post-run calibration: compares a stage's one-request forecast with the input tokens the
// provider reported for the child's FIRST provider request only. Later requests of an agent
// loop (tool turns, retries, cache reads of the whole conversation) are total usage, never a
// prompt under-forecast, so the caller must pass the first request's usage and nothing else.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "budget/planner.h"
#include "budget/route_capacity.h"

namespace pi_fusion::budget {

// Pi `Usage` of the first provider request: `input` excludes cached tokens, so the prompt's
// size is input + cacheRead + cacheWrite.
struct FirstRequestUsage {
  int64_t input = 0;
  int64_t cache_read = 0;
  int64_t cache_write = 0;
};

// nullopt when the observed prompt tokens are <= the forecast for the same exact prompt;
// otherwise a `pi-background-tasks.fusion-calibration-violation.v2` record (canonical JSON is
// the caller's choice of bytes) with under_forecast_tokens = observed - forecast.
// REQUIRES: attempt >= 1.
std::optional<nlohmann::json> CalibrationViolation(const RouteCapacity& route, Role stage,
                                                   int attempt, std::string_view system_prompt,
                                                   std::string_view user_prompt,
                                                   const FirstRequestUsage& usage);

// "calibration warning (N tokens under forecast)": the progress phrase for a violation.
std::string CalibrationWarningText(int64_t under_forecast_tokens);

}  // namespace pi_fusion::budget
