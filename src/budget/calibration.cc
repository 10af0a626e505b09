#include "budget/calibration.h"

#include "budget/budget_constants.h"
#include "budget/plan_json.h"
#include "budget/stage_text.h"
#include "pi_fusion/sha256.h"

namespace pi_fusion::budget {

std::optional<nlohmann::json> CalibrationViolation(const RouteCapacity& route, Role stage,
                                                   int attempt, std::string_view system_prompt,
                                                   std::string_view user_prompt,
                                                   const FirstRequestUsage& usage) {
  ByteClassCounts counts = CountByteClasses(system_prompt);
  counts += CountByteClasses(user_prompt);
  const TokenEstimate estimate = EstimateTokens(route.family, counts);
  const int64_t observed = usage.input + usage.cache_read + usage.cache_write;
  if (observed <= estimate.tokens) return std::nullopt;
  const int slot = stage == Role::kCandidate ? static_cast<int>(route.spec.slot) + 1 : 0;
  return nlohmann::json{
      {"schema_version", kCalibrationViolationSchema},
      {"stage", PlanStageName(stage)},
      {"slot", slot == 0 ? nlohmann::json(nullptr) : nlohmann::json(slot)},
      {"role", SlotId(route.spec.slot)},
      {"attempt", attempt},
      {"route", {{"provider", route.spec.provider}, {"model", route.spec.model}}},
      {"rate", RateJson(estimate.rate)},
      {"bytes", ByteClassesJson(counts)},
      {"system_prompt_sha256", Sha256Ref(system_prompt)},
      {"user_prompt_sha256", Sha256Ref(user_prompt)},
      {"prompt_utf8_bytes", counts.known()},
      {"forecast_input_tokens", estimate.tokens},
      {"observed_input_tokens", observed},
      {"observed_breakdown",
       {{"input", usage.input},
        {"cache_read", usage.cache_read},
        {"cache_write", usage.cache_write}}},
      {"under_forecast_tokens", observed - estimate.tokens},
  };
}

std::string CalibrationWarningText(int64_t under_forecast_tokens) {
  return "calibration warning (" + std::to_string(under_forecast_tokens) +
         " tokens under forecast)";
}

}  // namespace pi_fusion::budget
