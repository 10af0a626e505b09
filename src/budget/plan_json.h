// budget-plan.json: the plan as `pi-background-tasks.fusion-budget-plan.v4` JSON.
//
// The closed shape is schemas/artifacts/budget-plan.json (every key required, no others); a
// unit test validates the output against that file. The bytes written to disk are the
// canonical JSON of this value (keys sorted, no white space). Thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "budget/planner.h"

namespace pi_fusion::budget {

nlohmann::json BudgetPlanToJson(const BudgetPlan& plan);

// CanonicalJson(BudgetPlanToJson(plan)): the exact bytes of budget-plan.json.
std::string BudgetPlanBytes(const BudgetPlan& plan);

// The `policy` object: every constant of budget_constants.h that shaped the plan.
nlohmann::json BudgetPolicyJson();

// {family, configured_x100, effective_x100, source, whitespace_fraction_x10000|null}
nlohmann::json RateJson(const RateChoice& rate);
// {multibyte, whitespace, dense, unknown_output_contract}
nlohmann::json ByteClassesJson(const ByteClassCounts& counts);

}  // namespace pi_fusion::budget
