#include "run/cost_estimate.h"

#include "budget/cost_text.h"
#include "protocol/constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {

std::string CostEstimateText(const PreparedRun& run) {
  // Tool-using candidates (and an evaluator given their tools) send one more model request per
  // tool round trip.
  const workflow::WorkflowSpec& spec = workflow::SpecOf(run.request.request.workflow);
  const bool tools = spec.candidate_capability != workflow::Capability::kReason;
  const int64_t evaluator_calls = workflow::EvaluatorHasTools(spec, run.policy.evaluator_tools)
                                      ? protocol::kEvaluatorToolBudget
                                      : 0;
  return budget::CostEstimateText(run.plan, run.cost_forecast, tools, run.policy.max_cost_usd,
                                  evaluator_calls);
}

nlohmann::json CostEstimateJson(const PreparedRun& run) {
  return budget::CostForecastJson(run.plan, run.cost_forecast);
}

}  // namespace pi_fusion::run
