// The measured check right before each launch: exactly at the limit passes, one byte over fails.
#include <catch2/catch.hpp>

#include <string>

#include "budget/planner.h"
#include "plan_fixture.h"

namespace pi_fusion::budget {
namespace {

RouteCapacity Route(Slot role, const std::string& provider, int64_t allowed) {
  auto c = ComputeRouteCapacity(RouteSpec{role, provider, "m", testing::WindowFor(allowed), 0});
  REQUIRE(c.ok());
  REQUIRE(c->allowed_input == allowed);
  return *c;
}

TEST_CASE("MeasuredCheck: one token per byte route, exact limit passes, one byte over fails") {
  const RouteCapacity route = Route(Slot::kEvaluator, "local", 10000);
  // 10000 allowed = 512 intercept + 9488 bytes, split across system prompt and stdin.
  const std::string system(4000, 's');
  const std::string at_limit = std::string(5487, 'u') + "\n";
  CHECK(CheckMeasuredPrompt(route, Role::kEvaluator, system, at_limit).ok());
  const Status over = CheckMeasuredPrompt(route, Role::kEvaluator, system, at_limit + "x");
  REQUIRE_FALSE(over.ok());
  CHECK(over.code() == "prompt_budget_exceeded_measured");
  CHECK_THAT(over.message(),
             Catch::Contains("exact rendered evaluation prompt for Evaluator route local/m") &&
                 Catch::Contains("9489 UTF-8 bytes") && Catch::Contains("over by 1") &&
                 Catch::Contains("/fusion-models"));
}

TEST_CASE("MeasuredCheck: a multibyte byte counts as one token") {
  const RouteCapacity route = Route(Slot::kCandidate2, "local", 10000);
  const std::string at_limit(9488, 'a');
  CHECK(CheckMeasuredPrompt(route, Role::kCandidate, "", at_limit).ok());
  const std::string over = at_limit.substr(1) + "\xC3\xA9";  // 9487 ASCII + 2 multibyte bytes
  const Status s = CheckMeasuredPrompt(route, Role::kCandidate, "", over);
  CHECK(s.code() == "prompt_budget_exceeded_measured");
  CHECK_THAT(s.message(), Catch::Contains("candidate 2 prompt for Candidate 2 route"));
}

TEST_CASE("MeasuredCheck: Anthropic rate 1.73, the largest fitting prompt and one byte more") {
  const RouteCapacity route = Route(Slot::kMerger, "anthropic", 10000);
  // tokens(b) = ceil(100 b / 173) + 512 <= 10000  <=>  b <= floor(9488 * 173 / 100) = 16414.
  const std::string at_limit(16414, 'w');
  CHECK(CheckMeasuredPrompt(route, Role::kMerger, at_limit, "").ok());
  const Status s = CheckMeasuredPrompt(route, Role::kMerger, at_limit + "w", "");
  CHECK(s.code() == "prompt_budget_exceeded_measured");
  CHECK_THAT(s.message(), Catch::Contains("10001 input tokens against 10000 allowed"));
}

}  // namespace
}  // namespace pi_fusion::budget
