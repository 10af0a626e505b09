// A prepared run's cost estimate (budget/cost_forecast.h) as the launch receipt, the /fusion
// notice and the launch details carry it: the texts name the workflow's tool use, which only the
// run knows.
//
// Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "run/run_request.h"

namespace pi_fusion::run {

// budget::CostEstimateText of the run: a total line, then one line per stage.
std::string CostEstimateText(const PreparedRun& run);

// budget::CostForecastJson of the run.
nlohmann::json CostEstimateJson(const PreparedRun& run);

}  // namespace pi_fusion::run
