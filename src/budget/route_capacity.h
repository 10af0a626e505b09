// Route capacity: how many input tokens one configured route may spend on a stage prompt.
//
//   effective_window = context_window, capped at 200,000 for provider "anthropic"
//   reserved_output  = max(32,768, the model's declared max output tokens)
//   allowed_input    = effective_window - reserved_output - framing (4,096) - safety (4,096)
// A route whose allowed input is below 8,192 tokens (or whose window is not positive) cannot
// run any stage: ComputeRouteCapacity fails with model_capacity_unknown naming the slot.
// Values only; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "budget/estimator.h"
#include "core/role.h"  // Slot: the five configured routes, in plan order
#include "pi_fusion/status.h"

namespace pi_fusion::budget {

// What the planner needs to know about one resolved route (filled from the admitted model).
struct RouteSpec {
  Slot slot = Slot::kCandidate1;
  std::string provider;
  std::string model;
  int64_t context_window = 0;     // the registry's contextWindow (tokens)
  int64_t max_output_tokens = 0;  // the registry's maxTokens; 0 when unknown
};

struct RouteCapacity {
  RouteSpec spec;
  Family family = Family::kUnknown;
  int64_t effective_window = 0;
  bool window_capped = false;  // the Anthropic cap lowered the window
  int64_t reserved_output = 0;
  int64_t framing_reserve = 0;
  int64_t safety_reserve = 0;
  int64_t allowed_input = 0;  // >= kMinInputTokens

  std::string QualifiedId() const { return spec.provider + "/" + spec.model; }
};

// The capacity of `spec`, or model_capacity_unknown when it has no usable window.
Result<RouteCapacity> ComputeRouteCapacity(const RouteSpec& spec);

}  // namespace pi_fusion::budget
