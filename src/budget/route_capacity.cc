#include "budget/route_capacity.h"

#include <algorithm>

#include "budget/budget_constants.h"

namespace pi_fusion::budget {

namespace {

Status Unusable(const RouteCapacity& capacity, const std::string& why) {
  const int64_t required =
      kMinInputTokens + capacity.reserved_output + kFramingReserveTokens + kSafetyReserveTokens;
  return Status::Error(
      std::string(kModelCapacityUnknown),
      std::string(SlotLabel(capacity.spec.slot)) + " route " + capacity.QualifiedId() + " " + why +
          ", but Fusion needs at least " + std::to_string(required) + " tokens on every route (" +
          std::to_string(capacity.reserved_output) + " reserved output + " +
          std::to_string(kFramingReserveTokens) + " framing + " +
          std::to_string(kSafetyReserveTokens) + " safety + " + std::to_string(kMinInputTokens) +
          " input). Choose a larger-context model for " +
          std::string(SlotLabel(capacity.spec.slot)) + " with /fusion-models.");
}

}  // namespace

Result<RouteCapacity> ComputeRouteCapacity(const RouteSpec& spec) {
  RouteCapacity capacity;
  capacity.spec = spec;
  capacity.family = FamilyForProvider(spec.provider);
  capacity.effective_window = spec.context_window;
  if (spec.provider == "anthropic" && capacity.effective_window > kAnthropicWindowCapTokens) {
    capacity.effective_window = kAnthropicWindowCapTokens;
    capacity.window_capped = true;
  }
  capacity.reserved_output = std::max(kFusionOutputReserveTokens, spec.max_output_tokens);
  capacity.framing_reserve = kFramingReserveTokens;
  capacity.safety_reserve = kSafetyReserveTokens;
  if (spec.context_window <= 0) return Unusable(capacity, "has no usable context window");
  capacity.allowed_input = capacity.effective_window - capacity.reserved_output -
                           capacity.framing_reserve - capacity.safety_reserve;
  if (capacity.allowed_input < kMinInputTokens) {
    std::string window = std::to_string(capacity.effective_window);
    if (capacity.window_capped) window += " (capped)";
    return Unusable(capacity, "has a " + window + "-token context window");
  }
  return capacity;
}

}  // namespace pi_fusion::budget
