// CheckPlan and CheckMeasuredPrompt (declared in planner.h): the two gates that turn a budget
// verdict into the error a user sees.
#include "budget/budget_constants.h"
#include "budget/planner.h"
#include "budget/stage_text.h"

namespace pi_fusion::budget {

Status CheckPlan(const BudgetPlan& plan) {
  if (!plan.blocked()) return Status();
  const BudgetBlocker& primary = plan.blockers.front();
  const StageForecast& stage = plan.stages[primary.stage_index];
  std::string message = "Fusion budget forecast: " + primary.message + "." +
                        ByteClassDiagnostic(stage.estimate) + " " + plan.remediation.text;
  if (plan.blockers.size() > 1) {
    message += " Also blocked:";
    for (size_t i = 1; i < plan.blockers.size(); ++i) {
      message += (i == 1 ? " " : ", ") + plan.stages[plan.blockers[i].stage_index].Label();
    }
    message += ".";
  }
  message += " No child was started and nothing was clipped; budget-plan.json has every stage.";
  return Status::Error(std::string(kPromptBudgetExceededForecast), std::move(message));
}

Status CheckMeasuredPrompt(const RouteCapacity& route, Role stage, std::string_view system_prompt,
                           std::string_view user_prompt) {
  ByteClassCounts counts = CountByteClasses(system_prompt);
  counts += CountByteClasses(user_prompt);
  const TokenEstimate estimate = EstimateTokens(route.family, counts);
  if (estimate.tokens <= route.allowed_input) return Status();
  const int slot = stage == Role::kCandidate ? static_cast<int>(route.spec.slot) + 1 : 0;
  std::string message =
      "The exact rendered " + StageLabel(stage, slot) + " prompt for " + RouteText(route) + " is " +
      std::to_string(counts.known()) + " UTF-8 bytes, estimated at " +
      std::to_string(estimate.tokens) + " input tokens against " +
      std::to_string(route.allowed_input) + " allowed (over by " +
      std::to_string(estimate.tokens - route.allowed_input) + ")." + ByteClassDiagnostic(estimate) +
      " Split the workflow or choose a larger-context subscription route with /fusion-models.";
  return Status::Error(std::string(kPromptBudgetExceededMeasured), std::move(message));
}

}  // namespace pi_fusion::budget
