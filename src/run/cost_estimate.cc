#include "run/cost_estimate.h"

#include "budget/cost_text.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {

std::string CostEstimateText(const PreparedRun& run) {
  // Tool-using candidates send one more model request per tool round trip.
  const bool tools = workflow::SpecOf(run.request.request.workflow).candidate_capability !=
                     workflow::Capability::kReason;
  return budget::CostEstimateText(run.plan, run.cost_forecast, tools, run.policy.max_cost_usd);
}

nlohmann::json CostEstimateJson(const PreparedRun& run) {
  return budget::CostForecastJson(run.plan, run.cost_forecast);
}

}  // namespace pi_fusion::run
