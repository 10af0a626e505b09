// The cost cap: preflight refuses an expected cost over the cap, a run stops before a stage when
// its spend plus the expected cost still to come would pass it, unpriced stages count $0, and no
// cap means no check.
#include <catch2/catch.hpp>

#include <optional>

#include "budget/cost_cap.h"
#include "core/error_codes.h"

namespace pi_fusion::budget {
namespace {

using Catch::Matchers::Contains;

StageCost Priced(Stage stage, int slot, double usd, bool conditional = false) {
  StageCost cost;
  cost.stage = stage;
  cost.slot = slot;
  cost.conditional = conditional;
  cost.usd = UsdRange{usd, usd * 4};
  return cost;
}

// Three candidates at $0.01, the evaluation $0.02, its repair $0.02 (conditional), the merge
// $0.03: $0.08 expected for the run.
CostForecast Forecast() {
  CostForecast f;
  f.stages = {Priced(Stage::kCandidate, 1, 0.01),
              Priced(Stage::kCandidate, 2, 0.01),
              Priced(Stage::kCandidate, 3, 0.01),
              Priced(Stage::kEvaluation, 0, 0.02),
              Priced(Stage::kEvaluationRepair, 0, 0.02, true),
              Priced(Stage::kMerge, 0, 0.03)};
  f.usd = {0.08, 0.40};
  return f;
}

const CapStopKept kKept{3, true, "/project/.pi/fusion/s/reason-1", "reason-1"};

TEST_CASE("CostCap: no cap checks nothing, whatever the estimate or the spend") {
  CHECK(CheckCostCapBeforeRun(std::nullopt, Forecast()).ok());
  for (Stage next : {Stage::kEvaluation, Stage::kEvaluationRepair, Stage::kMerge}) {
    CHECK(CheckCostCapBeforeStage(std::nullopt, 1e9, Forecast(), next, kKept).ok());
  }
}

TEST_CASE("CostCap: preflight refuses an expected cost over the cap, naming both") {
  const Status refused = CheckCostCapBeforeRun(0.05, Forecast());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.code() == kCostCapExceeded);
  CHECK(refused.message() ==
        "the run's expected cost, $0.0800 (an estimate), exceeds the cost cap of $0.0500 "
        "(policy.max_cost_usd); no child was started. Raise or clear the cap with /fusion-models, "
        "or choose cheaper routes.");
  // The expected figure binds, not the worst case ($0.40).
  CHECK(CheckCostCapBeforeRun(0.08, Forecast()).ok());
  CHECK(CheckCostCapBeforeRun(0.1, Forecast()).ok());
}

TEST_CASE("CostCap: before the merge, the spend plus the merge's expected cost must fit") {
  // $0.06 spent + $0.03 expected = $0.09.
  CHECK(CheckCostCapBeforeStage(0.1, 0.06, Forecast(), Stage::kMerge, kKept).ok());
  const Status stopped = CheckCostCapBeforeStage(0.085, 0.06, Forecast(), Stage::kMerge, kKept);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.code() == kCostCapExceeded);
  CHECK(stopped.message() ==
        "the cost cap of $0.0850 (policy.max_cost_usd) stopped the run before the merge: $0.0600 "
        "spent so far plus $0.0300 expected for the merge (an estimate) would exceed it. 3 "
        "verified candidate answers and the evaluation are kept in "
        "/project/.pi/fusion/s/reason-1; raise or clear policy.max_cost_usd with /fusion-models, "
        "then resume the run with /fusion-resume reason-1, which reuses them.");
}

TEST_CASE("CostCap: before the evaluation the repair is not counted; before the repair it is") {
  // Before the evaluation: evaluation + merge = $0.05 still to come.
  CHECK(CheckCostCapBeforeStage(0.08, 0.025, Forecast(), Stage::kEvaluation, kKept).ok());
  const Status evaluation = CheckCostCapBeforeStage(0.07, 0.025, Forecast(), Stage::kEvaluation,
                                                    {3, false, "/r", "reason-2"});
  REQUIRE_FALSE(evaluation.ok());
  CHECK_THAT(evaluation.message(),
             Contains("before the evaluation: $0.0250 spent so far plus $0.0500 expected for the "
                      "evaluation and the merge (an estimate)"));
  CHECK_THAT(evaluation.message(), Contains("3 verified candidate answers are kept in /r;"));
  // Before the repair: repair + merge = $0.05 on top of $0.05 spent.
  CHECK(CheckCostCapBeforeStage(0.11, 0.05, Forecast(), Stage::kEvaluationRepair, kKept).ok());
  const Status repair =
      CheckCostCapBeforeStage(0.09, 0.05, Forecast(), Stage::kEvaluationRepair, kKept);
  REQUIRE_FALSE(repair.ok());
  CHECK_THAT(repair.message(),
             Contains("before the evaluation repair: $0.0500 spent so far plus "
                      "$0.0500 expected for the evaluation repair and the merge"));
}

TEST_CASE("CostCap: an unpriced stage counts $0, and the message says so") {
  CostForecast f = Forecast();
  f.stages.back().usd.reset();  // the merge's route has no prices
  f.usd.expected = 0.05;
  f.unpriced_stages = 1;
  // $0.07 spent, nothing priced still to come: within a $0.075 cap.
  CHECK(CheckCostCapBeforeStage(0.075, 0.07, f, Stage::kMerge, kKept).ok());
  const Status stopped = CheckCostCapBeforeStage(0.06, 0.07, f, Stage::kMerge, kKept);
  REQUIRE_FALSE(stopped.ok());
  CHECK_THAT(stopped.message(), Contains("plus $0.0000 expected for the merge"));
  CHECK_THAT(stopped.message(),
             Contains(" 1 stage(s) run on a route with no price and count $0 against the cap."));
  const Status refused = CheckCostCapBeforeRun(0.04, f);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.message(), Contains("no price and count $0 against the cap."));
}

TEST_CASE("CostCap: subscription routes count at their catalog prices") {
  CostForecast f = Forecast();
  f.subscription_stages = 2;
  const Status refused = CheckCostCapBeforeRun(0.05, f);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.message() ==
        "the run's expected cost, $0.0800 (an estimate), exceeds the cost cap of $0.0500 "
        "(policy.max_cost_usd); no child was started. Subscription routes count at their catalog "
        "prices. Raise or clear the cap with /fusion-models, or choose cheaper routes.");
  const Status stopped = CheckCostCapBeforeStage(0.085, 0.06, f, Stage::kMerge, kKept);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.message() ==
        "the cost cap of $0.0850 (policy.max_cost_usd) stopped the run before the merge: $0.0600 "
        "spent so far plus $0.0300 expected for the merge (an estimate) would exceed it. "
        "Subscription routes count at their catalog prices. 3 verified candidate answers and the "
        "evaluation are kept in /project/.pi/fusion/s/reason-1; raise or clear "
        "policy.max_cost_usd with /fusion-models, then resume the run with /fusion-resume "
        "reason-1, which reuses them.");
}

TEST_CASE("CostCap: subscription and unpriced routes together: both notes, unpriced first") {
  CostForecast f = Forecast();
  f.stages.back().usd.reset();  // the merge's route has no prices
  f.usd.expected = 0.05;
  f.unpriced_stages = 1;
  f.subscription_stages = 3;
  const Status refused = CheckCostCapBeforeRun(0.04, f);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.message() ==
        "the run's expected cost, $0.0500 (an estimate), exceeds the cost cap of $0.0400 "
        "(policy.max_cost_usd); no child was started. 1 stage(s) run on a route with no price and "
        "count $0 against the cap. Subscription routes count at their catalog prices. Raise or "
        "clear the cap with /fusion-models, or choose cheaper routes.");
}

TEST_CASE("CostCap: the next step names what is kept, where, and how to resume from it") {
  CHECK(CapStopNextStep({1, false, "/r", "reason-1"}) ==
        "1 verified candidate answer is kept in /r; raise or clear policy.max_cost_usd with "
        "/fusion-models, then resume the run with /fusion-resume reason-1, which reuses it.");
  CHECK(CapStopNextStep({2, false, "/r", "reason-1"}) ==
        "2 verified candidate answers are kept in /r; raise or clear policy.max_cost_usd with "
        "/fusion-models, then resume the run with /fusion-resume reason-1, which reuses them.");
  CHECK(CapStopNextStep({1, true, "/r", "reason-1"}) ==
        "1 verified candidate answer and the evaluation are kept in /r; raise or clear "
        "policy.max_cost_usd with /fusion-models, then resume the run with /fusion-resume "
        "reason-1, which reuses them.");
  // Nothing verified: nothing to resume from, so no resume is offered.
  CHECK(CapStopNextStep({0, false, "/r", "reason-1"}) ==
        "nothing verified is kept; raise or clear policy.max_cost_usd with /fusion-models to run "
        "again.");
}

}  // namespace
}  // namespace pi_fusion::budget
