#include <catch2/catch.hpp>

#include "budget/calibration.h"
#include "json_schema_check.h"
#include "plan_fixture.h"

namespace pi_fusion::budget {
namespace {

TEST_CASE("Calibration: only a first request above the forecast is a violation") {
  auto route = ComputeRouteCapacity(
      RouteSpec{Slot::kCandidate1, "local", "m", testing::WindowFor(10000), 0});
  REQUIRE(route.ok());
  // Forecast: 1000 bytes + 512 = 1512 tokens.
  const std::string prompt(1000, 'x');
  CHECK_FALSE(CalibrationViolation(*route, Role::kCandidate, 1, prompt, "", {1500, 12, 0}));
  auto v = CalibrationViolation(*route, Role::kCandidate, 2, prompt, "", {1000, 500, 20});
  REQUIRE(v);
  CHECK((*v)["schema_version"] == "pi-background-tasks.fusion-calibration-violation.v2");
  CHECK((*v)["forecast_input_tokens"] == 1512);
  CHECK((*v)["observed_input_tokens"] == 1520);
  CHECK((*v)["under_forecast_tokens"] == 8);
  CHECK((*v)["slot"] == 1);
  CHECK((*v)["attempt"] == 2);
  CHECK((*v)["role"] == "candidate-1");
  CHECK(CalibrationWarningText(8) == "calibration warning (8 tokens under forecast)");
  // The published shape (an evaluator's, slot null, is checked on a real run in e2e_run).
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-calibration-violation.v2.json"), *v)
            .empty());
}

}  // namespace
}  // namespace pi_fusion::budget
