// Test fixture: a PlanInput whose routes are all "local" (unknown family, one token per byte,
// so every forecast is bytes + 512 + reserved bytes) with a chosen allowed input.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "budget/budget_constants.h"
#include "budget/planner.h"

namespace pi_fusion::budget::testing {

// The window that gives `allowed` input tokens on a route with no declared max output.
inline int64_t WindowFor(int64_t allowed) {
  return allowed + kFusionOutputReserveTokens + kFramingReserveTokens + kSafetyReserveTokens;
}

// Owns the prompt texts the PlanInput views point at.
struct PlanFixture {
  std::string candidate_system = "SYS";
  std::string candidate_user = "REQ";
  std::string evaluation_system = "EVAL";
  std::string evaluation_user = "REQ";
  std::string repair_system = "REPAIR";
  std::string repair_user = "REQ";
  std::string merge_system = "MERGE";
  std::string merge_user = "REQ";
  std::string request = "REQ";
  std::string history;
  int64_t allowed = 400000;

  PlanInput Input() const {
    PlanInput in;
    in.workflow = Workflow::kReason;
    for (size_t i = 0; i < kAllSlots.size(); ++i) {
      in.routes[i] =
          RouteSpec{kAllSlots[i], "local", "scripted-" + std::to_string(i), WindowFor(allowed), 0};
    }
    in.candidate = {candidate_system, candidate_user};
    in.evaluation = {evaluation_system, evaluation_user};
    in.evaluation_repair = {repair_system, repair_user};
    in.merge = {merge_system, merge_user};
    in.request = request;
    in.history = history;
    return in;
  }

  // Sets every user prompt to `prefix + request + suffix`.
  void SetUserPrompts(const std::string& prefix, const std::string& suffix) {
    for (std::string* p : {&candidate_user, &evaluation_user, &repair_user, &merge_user}) {
      *p = prefix + request + suffix;
    }
  }
};

inline BudgetPlan MustPlan(const PlanInput& in) {
  Result<BudgetPlan> plan = PlanBudget(in);
  if (!plan.ok()) throw std::runtime_error(plan.status().ToString());
  return std::move(plan).value();
}

}  // namespace pi_fusion::budget::testing
