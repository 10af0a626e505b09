// The cost cap: a capped run on an unpriced route and a cap below the run's minimum are refused
// at preflight, the expected cost never refuses; the allowances never sum past the cap; a later
// stage whose allowance cannot pay for its first request stops the run; no cap checks nothing.
#include <catch2/catch.hpp>

#include <optional>

#include "budget/cost_cap.h"
#include "core/error_codes.h"

namespace pi_fusion::budget {
namespace {

using Catch::Matchers::Contains;

// $1 input, $10 output per million tokens: a 1,024-token answer is $0.01024.
constexpr TokenPrices kPrices{1.0, 10.0, 0.1, 1.25};

StageCost Priced(Role stage, int slot, double minimum, bool conditional = false) {
  StageCost cost;
  cost.stage = stage;
  cost.slot = slot;
  cost.route = stage == Role::kCandidate ? kAllSlots[slot - 1]
               : stage == Role::kMerger  ? Slot::kMerger
                                         : Slot::kEvaluator;
  cost.conditional = conditional;
  cost.usd = UsdRange{1.0, 4.0};  // an expected cost far above every cap below
  cost.prices = kPrices;
  cost.minimum_usd = minimum;
  return cost;
}

// Minimums: candidates $0.01 each, the evaluation $0.02, its repair $0.02 (conditional), the merge
// $0.03: $0.08 for the run.
CostForecast Forecast() {
  CostForecast f;
  f.stages = {Priced(Role::kCandidate, 1, 0.01),    Priced(Role::kCandidate, 2, 0.01),
              Priced(Role::kCandidate, 3, 0.01),    Priced(Role::kEvaluator, 0, 0.02),
              Priced(Role::kRepair, 0, 0.02, true), Priced(Role::kMerger, 0, 0.03)};
  f.usd = {5.0, 20.0};
  f.minimum_usd = 0.08;
  return f;
}

BudgetPlan Plan() {
  BudgetPlan plan;
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    plan.routes[i].spec = {kAllSlots[i], "acme", "model-" + std::to_string(i + 1), 128000, 16384};
  }
  return plan;
}

const CapStopKept kKept{3, true, "/project/.pi/fusion/s/reason-1", "reason-1"};

TEST_CASE("CostCap: no cap checks nothing, whatever the minimum or the spend") {
  CostForecast unpriced = Forecast();
  unpriced.stages[0].prices.reset();
  CHECK(CheckCostCapBeforeRun(std::nullopt, Plan(), unpriced).ok());
  for (Role next : {Role::kEvaluator, Role::kRepair, Role::kMerger}) {
    CHECK(CheckCostCapBeforeStage(std::nullopt, 1e9, Forecast(), next, 1 << 20, kKept).ok());
  }
}

TEST_CASE("CostCap: preflight refuses only a cap below the run's minimum, not the estimate") {
  // The expected cost ($5) is far above the cap: no longer a refusal.
  CHECK(CheckCostCapBeforeRun(0.08, Plan(), Forecast()).ok());
  const Status refused = CheckCostCapBeforeRun(0.0799, Plan(), Forecast());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.code() == kCostCapExceeded);
  CHECK(refused.message() ==
        "the cost cap of $0.0799 (policy.max_cost_usd) cannot pay for the run's minimum, $0.0800: "
        "each stage's first model request with its known prompt at one token per byte and a "
        "1,024-token answer; no child was started. Raise or clear the cap with /fusion-models, or "
        "choose cheaper routes.");
  CostForecast subscribed = Forecast();
  subscribed.subscription_stages = 2;
  CHECK_THAT(CheckCostCapBeforeRun(0.05, Plan(), subscribed).message(),
             Contains("no child was started. Subscription routes count at their catalog prices. "
                      "Raise or clear"));
}

TEST_CASE("CostCap: a capped run on a route without prices is refused, naming the slot") {
  CostForecast f = Forecast();
  f.stages[1].prices.reset();  // candidate 2
  f.stages[1].minimum_usd.reset();
  const Status refused = CheckCostCapBeforeRun(100.0, Plan(), f);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.code() == kCostCapExceeded);
  CHECK(refused.message() ==
        "the cost cap of $100.0000 (policy.max_cost_usd) cannot bound the Candidate 2 slot's route "
        "acme/model-2: Pi gives no prices for it, so no request on it can be admitted against the "
        "cap; no child was started. Choose a priced route for that slot, or clear the cap, with "
        "/fusion-models.");
}

TEST_CASE("CostCap: the allowances set the later stages' minimum aside and never pass the cap") {
  // $1 cap: the evaluation and the merge need $0.05 at least; three candidates share $0.95.
  CHECK(LaterStagesMinimumUsd(Forecast(), Role::kCandidate) == Approx(0.05));
  CHECK(LaterStagesMinimumUsd(Forecast(), Role::kEvaluator) == Approx(0.03));
  CHECK(LaterStagesMinimumUsd(Forecast(), Role::kRepair) == Approx(0.03));
  CHECK(LaterStagesMinimumUsd(Forecast(), Role::kMerger) == 0);
  const double each = CandidateAllowanceUsd(1.0, 0, Forecast(), 3);
  CHECK(each == Approx(0.95 / 3));
  // A resumed run that reuses two candidates gives the one that runs all of it.
  CHECK(CandidateAllowanceUsd(1.0, 0, Forecast(), 1) == Approx(0.95));
  // Whatever the candidates spent within their shares, the rest fits what is left.
  const double spent = 3 * each;
  const double evaluation = StageAllowanceUsd(1.0, spent, Forecast(), Role::kEvaluator);
  CHECK(evaluation == Approx(0.02));
  const double merge = StageAllowanceUsd(1.0, spent + evaluation, Forecast(), Role::kMerger);
  CHECK(spent + evaluation + merge <= 1.0 + 1e-12);
  // Overspent: nothing, never a negative allowance.
  CHECK(StageAllowanceUsd(1.0, 2.0, Forecast(), Role::kMerger) == 0);
  CHECK(CandidateAllowanceUsd(0.01, 0, Forecast(), 3) == 0);
}

TEST_CASE("CostCap: an adaptive run's agreement check is set aside while candidates run") {
  CostForecast f = Forecast();
  StageCost check = Priced(Role::kEvaluator, 0, 0.04);
  check.check = Stage::kAgreement;
  check.prices = TokenPrices{100.0, 100.0, 0, 0};  // far dearer than the evaluation's route
  f.stages.insert(f.stages.begin() + 3, check);
  // The candidates' allowance leaves the check's first request, the evaluation's and the merge's.
  CHECK(LaterStagesMinimumUsd(f, Role::kCandidate) == Approx(0.09));
  // Before the evaluation its own row prices the request, never the check's.
  CHECK(CheckCostCapBeforeStage(0.1, 0.05, f, Role::kEvaluator, 7000, kKept).ok());
  // The check itself leaves the evaluation's and the merge's first requests.
  CHECK(LaterStagesMinimumUsd(f, Role::kEvaluator, Stage::kAgreement) == Approx(0.05));
  CHECK(StageAllowanceUsd(0.2, 0.1, f, Role::kEvaluator, Stage::kAgreement) == Approx(0.05));
  const Status stopped =
      CheckCostCapBeforeStage(0.1, 0.05, f, Role::kEvaluator, 7000, kKept, Stage::kAgreement);
  REQUIRE_FALSE(stopped.ok());
  CHECK_THAT(stopped.message(),
             Contains("stopped the run before the agreement check: $0.0500 spent so far leaves "
                      "$0.0000 for it (the evaluation's and the merge's minimum, $0.0500, set "
                      "aside)"));
  // The order check (after the evaluation, as its role's repair) leaves the merge's.
  CHECK(LaterStagesMinimumUsd(f, Role::kRepair, Stage::kOrderCheck) == Approx(0.03));
}

TEST_CASE("CostCap: before a later stage, its allowance must pay for its first request") {
  // The merge's first request: 10,000 prompt bytes at $1.25/M (the cache write, the highest input
  // price) and 1,024 output tokens at $10/M: $0.0125 + $0.01024 = $0.02274.
  CHECK(CheckCostCapBeforeStage(0.1, 0.0772, Forecast(), Role::kMerger, 10000, kKept).ok());
  const Status stopped =
      CheckCostCapBeforeStage(0.1, 0.08, Forecast(), Role::kMerger, 10000, kKept);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.code() == kCostCapExceeded);
  CHECK(stopped.message() ==
        "the cost cap of $0.1000 (policy.max_cost_usd) stopped the run before the merge: $0.0800 "
        "spent so far leaves $0.0200 for it, less than its first model request needs at the "
        "least: $0.0227 for its 10,000-byte prompt at one token per byte and a 1,024-token "
        "answer. 3 verified candidate answers and the evaluation are kept in "
        "/project/.pi/fusion/s/reason-1; raise or clear policy.max_cost_usd with /fusion-models, "
        "then resume the run with /fusion-resume reason-1, which reuses them.");
}

TEST_CASE("CostCap: before the evaluation and its repair the merge's minimum is set aside") {
  // $0.1 cap, $0.05 spent: $0.05 left, $0.03 of it for the merge: $0.02 for the evaluation.
  CHECK(CheckCostCapBeforeStage(0.1, 0.05, Forecast(), Role::kEvaluator, 7000, kKept).ok());
  const Status evaluation = CheckCostCapBeforeStage(0.1, 0.05, Forecast(), Role::kEvaluator, 9000,
                                                    {3, false, "/r", "reason-2"});
  REQUIRE_FALSE(evaluation.ok());
  CHECK_THAT(evaluation.message(),
             Contains("before the evaluation: $0.0500 spent so far leaves $0.0200 for it (the "
                      "merge's minimum, $0.0300, set aside), less than its first model request "
                      "needs at the least: $0.0215 for its 9,000-byte prompt"));
  CHECK_THAT(evaluation.message(), Contains("3 verified candidate answers are kept in /r;"));
  const Status repair = CheckCostCapBeforeStage(0.1, 0.05, Forecast(), Role::kRepair, 9000, kKept);
  REQUIRE_FALSE(repair.ok());
  CHECK_THAT(repair.message(), Contains("before the evaluation repair: $0.0500 spent so far"));
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
        "Nothing verified is kept; raise or clear policy.max_cost_usd with /fusion-models to run "
        "again.");
}

}  // namespace
}  // namespace pi_fusion::budget
