#include <catch2/catch.hpp>

#include "budget/budget_constants.h"
#include "budget/route_capacity.h"

namespace pi_fusion::budget {
namespace {

RouteSpec Spec(Slot role, std::string provider, int64_t window, int64_t max_output) {
  return RouteSpec{role, std::move(provider), "m", window, max_output};
}

TEST_CASE("RouteCapacity: Anthropic's 1M window is capped to 200K") {
  auto c = ComputeRouteCapacity(Spec(Slot::kCandidate1, "anthropic", 1000000, 64000));
  REQUIRE(c.ok());
  CHECK(c->effective_window == 200000);
  CHECK(c->window_capped);
  CHECK(c->reserved_output == 64000);
  CHECK(c->allowed_input == 200000 - 64000 - 4096 - 4096);
  CHECK(c->family == Family::kAnthropic);
}

TEST_CASE("RouteCapacity: other providers keep their window") {
  auto c = ComputeRouteCapacity(Spec(Slot::kMerger, "local", 1000000, 0));
  REQUIRE(c.ok());
  CHECK(c->effective_window == 1000000);
  CHECK_FALSE(c->window_capped);
}

TEST_CASE("RouteCapacity: a 128K max output reserves 128K; small ones reserve 32K") {
  auto big = ComputeRouteCapacity(Spec(Slot::kEvaluator, "openai-codex", 400000, 128000));
  REQUIRE(big.ok());
  CHECK(big->reserved_output == 128000);
  CHECK(big->allowed_input == 400000 - 128000 - kFramingReserveTokens - kSafetyReserveTokens);
  auto small = ComputeRouteCapacity(Spec(Slot::kEvaluator, "local", 131072, 4096));
  REQUIRE(small.ok());
  CHECK(small->reserved_output == kFusionOutputReserveTokens);
  CHECK(small->allowed_input == 131072 - 32768 - 4096 - 4096);
}

TEST_CASE("RouteCapacity: minimum input is exactly 8192 tokens") {
  const int64_t minimum_window = 8192 + 32768 + 4096 + 4096;  // 49152
  auto at = ComputeRouteCapacity(Spec(Slot::kCandidate2, "local", minimum_window, 0));
  REQUIRE(at.ok());
  CHECK(at->allowed_input == kMinInputTokens);
  auto below = ComputeRouteCapacity(Spec(Slot::kCandidate2, "local", minimum_window - 1, 0));
  REQUIRE_FALSE(below.ok());
  CHECK(below.status().code() == "model_capacity_unknown");
  CHECK_THAT(below.status().message(), Catch::Contains("Candidate 2 route local/m") &&
                                           Catch::Contains("49151-token context window") &&
                                           Catch::Contains("at least 49152") &&
                                           Catch::Contains("/fusion-models"));
}

TEST_CASE("RouteCapacity: no window is model_capacity_unknown naming the slot") {
  for (int64_t window : {0, -1}) {
    auto c = ComputeRouteCapacity(Spec(Slot::kEvaluator, "local", window, 0));
    REQUIRE_FALSE(c.ok());
    CHECK(c.status().code() == "model_capacity_unknown");
    CHECK_THAT(c.status().message(), Catch::Contains("Evaluator route local/m has no usable"));
  }
}

TEST_CASE("RouteCapacity: a capped Anthropic route too small for its output reserve") {
  // 200K cap minus a 190K declared output leaves less than the minimum input.
  auto c = ComputeRouteCapacity(Spec(Slot::kMerger, "anthropic", 1000000, 190000));
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.status().message(), Catch::Contains("200000 (capped)"));
}

TEST_CASE("RouteCapacity: role ids and labels") {
  CHECK(SlotId(Slot::kCandidate3) == "candidate-3");
  CHECK(SlotLabel(Slot::kCandidate3) == "Candidate 3");
  CHECK(SlotId(Slot::kMerger) == "merger");
  CHECK(SlotLabel(Slot::kEvaluator) == "Evaluator");
}

}  // namespace
}  // namespace pi_fusion::budget
