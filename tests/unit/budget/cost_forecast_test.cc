// The cost forecast: expected and worst-case tokens and dollars per stage from the budget plan and
// route prices, run totals without (expected) and with (worst case) the conditional repair, and
// the expected cost of the stages still to run.
#include <catch2/catch.hpp>

#include <array>

#include "budget/cost_forecast.h"
#include "plan_fixture.h"

namespace pi_fusion::budget {
namespace {

using testing::MustPlan;
using testing::PlanFixture;

// The scripted model's prices: $0.50 input, $1.50 output per million tokens.
constexpr TokenPrices kPrices{0.5, 1.5, 0.05, 0.625};

std::array<RoutePricing, 5> Priced() {
  std::array<RoutePricing, 5> pricing;
  for (RoutePricing& p : pricing) p.prices = kPrices;
  return pricing;
}

const StageCost& CostOf(const CostForecast& f, Role stage, int slot = 0) {
  for (const StageCost& s : f.stages) {
    if (s.stage == stage && s.slot == slot) return s;
  }
  throw std::runtime_error("no such stage");
}

double Usd(int64_t input, int64_t output) { return (input * 0.5 + output * 1.5) / 1e6; }

TEST_CASE("CostForecast: each stage's range from its plan forecast and output cap") {
  PlanFixture f;  // unknown family: one token per byte, prompts of a few bytes + 512
  const BudgetPlan plan = MustPlan(f.Input());
  const CostForecast forecast = ForecastCost(plan, Priced());
  REQUIRE(forecast.stages.size() == 6);

  const StageCost& candidate = CostOf(forecast, Role::kCandidate, 2);
  CHECK(candidate.route == Slot::kCandidate2);
  CHECK(candidate.input == TokenRange{6 + 512, 6 + 512});  // "SYS" + "REQ": nothing reserved
  CHECK(candidate.output == TokenRange{12288, 49152});     // a quarter of 48 KiB, and all of it
  REQUIRE(candidate.usd);
  CHECK(candidate.usd->expected == Approx(Usd(518, 12288)));
  CHECK(candidate.usd->worst == Approx(Usd(518, 49152)));

  // The merger reads three candidate answers and the evaluation: a quarter of them expected.
  const StageCost& merge = CostOf(forecast, Role::kMerger);
  const int64_t reserved = 3 * 49152 + 65536;
  CHECK(merge.input == TokenRange{8 + 512 + reserved / 4, 8 + 512 + reserved});
  CHECK(merge.output == TokenRange{16384, 65536});
  CHECK_FALSE(merge.conditional);
  CHECK(CostOf(forecast, Role::kRepair).conditional);
}

TEST_CASE("CostForecast: earlier runs' medians replace the share of cap; the worst case stays") {
  PlanFixture f;
  const BudgetPlan plan = MustPlan(f.Input());
  ObservedRoles observed;
  observed[static_cast<size_t>(Slot::kCandidate2)] = ObservedTokens{900, 300, 4};
  observed[static_cast<size_t>(Slot::kMerger)] = ObservedTokens{10'000'000, 70'000, 3};
  observed[static_cast<size_t>(Slot::kEvaluator)] = ObservedTokens{700, 200, 5};
  const CostForecast forecast = ForecastCost(plan, Priced(), observed);

  const StageCost& two = CostOf(forecast, Role::kCandidate, 2);
  CHECK(two.from_history);
  CHECK(two.history_runs == 4);
  // The median may lie above the worst case, which does not count a candidate's tool turns.
  CHECK(two.input == TokenRange{900, 518});
  CHECK(two.output == TokenRange{300, 49152});
  CHECK(two.usd->expected == Approx(Usd(900, 300)));
  // Candidate 1 has no history of its own here: the share-of-cap rule.
  CHECK_FALSE(CostOf(forecast, Role::kCandidate, 1).from_history);
  CHECK(CostOf(forecast, Role::kCandidate, 1).output.expected == 12288);
  const StageCost& merge = CostOf(forecast, Role::kMerger);
  CHECK(merge.input.expected == 10'000'000);
  CHECK(merge.output.worst == 65536);
  // The repair stays on the share-of-cap rule (it is conditional).
  CHECK_FALSE(CostOf(forecast, Role::kRepair).from_history);
  CHECK(CostOf(forecast, Role::kEvaluator).from_history);
  CHECK(forecast.history_stages == 3);
  // No history: exactly the old forecast.
  CHECK(ForecastCost(plan, Priced(), {}).history_stages == 0);
}

TEST_CASE("CostForecast: the run's expected total leaves out the repair; the worst case has it") {
  PlanFixture f;
  const CostForecast forecast = ForecastCost(MustPlan(f.Input()), Priced());
  TokenRange input, output;
  UsdRange usd;
  for (const StageCost& s : forecast.stages) {
    if (!s.conditional) {
      input.expected += s.input.expected;
      output.expected += s.output.expected;
      usd.expected += s.usd->expected;
    }
    input.worst += s.input.worst;
    output.worst += s.output.worst;
    usd.worst += s.usd->worst;
  }
  const StageCost& repair = CostOf(forecast, Role::kRepair);
  CHECK(forecast.input == input);
  CHECK(forecast.output == output);
  CHECK(forecast.usd.expected == Approx(usd.expected));
  CHECK(forecast.usd.worst == Approx(usd.worst));
  CHECK(forecast.output.worst - forecast.output.expected >= repair.output.worst);
  CHECK(forecast.unpriced_stages == 0);
  CHECK(forecast.subscription_stages == 0);
}

TEST_CASE("CostForecast: a route without prices adds tokens but no dollars, and is counted") {
  PlanFixture f;
  std::array<RoutePricing, 5> pricing = Priced();
  pricing[static_cast<size_t>(Slot::kMerger)].prices.reset();
  const CostForecast forecast = ForecastCost(MustPlan(f.Input()), pricing);
  CHECK_FALSE(CostOf(forecast, Role::kMerger).usd);
  CHECK(forecast.unpriced_stages == 1);
  const CostForecast all = ForecastCost(MustPlan(f.Input()), Priced());
  CHECK(forecast.input == all.input);
  CHECK(forecast.usd.expected ==
        Approx(all.usd.expected - CostOf(all, Role::kMerger).usd->expected));
}

TEST_CASE(
    "CostForecast: each priced stage's minimum is its known prompt and a 1,024-token answer") {
  PlanFixture f;  // "SYS" + "REQ" for a candidate: 6 known bytes
  const BudgetPlan plan = MustPlan(f.Input());
  const CostForecast forecast = ForecastCost(plan, Priced());
  // One token per byte at the highest input price ($0.625, the cache write), 1,024 at $1.50.
  const StageCost& candidate = CostOf(forecast, Role::kCandidate, 1);
  REQUIRE(candidate.minimum_usd);
  CHECK(*candidate.minimum_usd == Approx((6 * 0.625 + 1024 * 1.5) / 1e6));
  CHECK(StageMinimumUsd(6, kPrices) == *candidate.minimum_usd);
  CHECK(WorstPricesOf(kPrices).input == 0.625);
  CHECK(WorstPricesOf(kPrices).output == 1.5);
  // The run's minimum leaves out the conditional repair, like its expected figure.
  double sum = 0;
  for (const StageCost& s : forecast.stages) {
    if (!s.conditional) sum += *s.minimum_usd;
  }
  CHECK(forecast.minimum_usd == Approx(sum));
  CHECK(forecast.minimum_usd < forecast.usd.expected);
  // Unpriced: no minimum.
  std::array<RoutePricing, 5> pricing = Priced();
  pricing[0].prices.reset();
  CHECK_FALSE(CostOf(ForecastCost(plan, pricing), Role::kCandidate, 1).minimum_usd);
}

TEST_CASE("CostForecast: subscription routes are marked per stage") {
  PlanFixture f;
  std::array<RoutePricing, 5> pricing = Priced();
  pricing[static_cast<size_t>(Slot::kEvaluator)].subscription = true;
  const CostForecast forecast = ForecastCost(MustPlan(f.Input()), pricing);
  CHECK(CostOf(forecast, Role::kEvaluator).subscription);
  CHECK(CostOf(forecast, Role::kRepair).subscription);  // the evaluator's route too
  CHECK_FALSE(CostOf(forecast, Role::kMerger).subscription);
  CHECK(forecast.subscription_stages == 2);
}

TEST_CASE("CostForecast: the expected output is counted at the route family's rate") {
  PlanFixture f;
  PlanInput input = f.Input();
  input.routes[0].provider = "anthropic";  // 1.73 bytes a token
  const CostForecast forecast = ForecastCost(MustPlan(input), Priced());
  CHECK(CostOf(forecast, Role::kCandidate, 1).output ==
        TokenRange{(12288 * 100 + 172) / 173, 49152});
  CHECK(CostOf(forecast, Role::kCandidate, 2).output == TokenRange{12288, 49152});
}

TEST_CASE("CostForecast: the expected cost of the stages still to run") {
  PlanFixture f;
  const CostForecast forecast = ForecastCost(MustPlan(f.Input()), Priced());
  const double evaluation = CostOf(forecast, Role::kEvaluator).usd->expected;
  const double repair = CostOf(forecast, Role::kRepair).usd->expected;
  const double merge = CostOf(forecast, Role::kMerger).usd->expected;
  CHECK(ExpectedCostFrom(forecast, Role::kCandidate) == Approx(forecast.usd.expected));
  CHECK(ExpectedCostFrom(forecast, Role::kEvaluator) == Approx(evaluation + merge));
  // About to repair: the repair runs now, then the merger.
  CHECK(ExpectedCostFrom(forecast, Role::kRepair) == Approx(repair + merge));
  CHECK(ExpectedCostFrom(forecast, Role::kMerger) == Approx(merge));
  CHECK(merge > 0);
}

const StageCost& CheckOf(const CostForecast& f, Stage check) {
  for (const StageCost& s : f.stages) {
    if (s.check == check) return s;
  }
  throw std::runtime_error("no such check");
}

TEST_CASE("CostForecast: the adaptive panel's check is expected and candidate 3 is conditional") {
  PlanFixture f;
  const BudgetPlan plan = MustPlan(f.Input());
  const CostForecast full = ForecastCost(plan, Priced());
  const CostForecast adaptive = ForecastCost(plan, Priced(), {}, {.adaptive = true});
  REQUIRE(adaptive.stages.size() == 7);
  CHECK(CostOf(adaptive, Role::kCandidate, 3).conditional);
  CHECK_FALSE(CostOf(adaptive, Role::kCandidate, 2).conditional);

  // The check reads two answers on the evaluator's route: the evaluation's known prompt, and two
  // candidate caps (worst) or a quarter of them (expected); its answer is a short verdict.
  const StageCost& evaluation = CostOf(adaptive, Role::kEvaluator);
  const StageCost& check = CheckOf(adaptive, Stage::kAgreement);
  CHECK(check.stage == Role::kEvaluator);
  CHECK(check.route == Slot::kEvaluator);
  CHECK_FALSE(check.conditional);
  const int64_t known = evaluation.input.worst - 3 * 49152;
  CHECK(check.input == TokenRange{known + 2 * 49152 / 4, known + 2 * 49152});
  CHECK(check.output == TokenRange{kCheckExpectedOutputBytes, 65536});
  REQUIRE(check.minimum_usd);
  CHECK(*check.minimum_usd == Approx(*evaluation.minimum_usd));

  // Expected: candidate 3 out, the check in; worst case: both in.
  const StageCost& third = CostOf(adaptive, Role::kCandidate, 3);
  CHECK(adaptive.usd.expected ==
        Approx(full.usd.expected - third.usd->expected + check.usd->expected));
  CHECK(adaptive.usd.worst == Approx(full.usd.worst + check.usd->worst));
  CHECK(adaptive.usd.expected < full.usd.expected);
  // The preflight minimum: the check's first request instead of candidate 3's.
  CHECK(adaptive.minimum_usd == Approx(full.minimum_usd - *third.minimum_usd + *check.minimum_usd));
}

TEST_CASE("CostForecast: the order check is two conditional calls reading the conflicts too") {
  PlanFixture f;
  const BudgetPlan plan = MustPlan(f.Input());
  const CostForecast full = ForecastCost(plan, Priced());
  const CostForecast checked = ForecastCost(plan, Priced(), {}, {.order_check = true});
  REQUIRE(checked.stages.size() == 7);
  const StageCost& evaluation = CostOf(checked, Role::kEvaluator);
  const StageCost& check = CheckOf(checked, Stage::kOrderCheck);
  CHECK(check.conditional);
  CHECK(check.calls == 2);
  const int64_t known = evaluation.input.worst - 3 * 49152;
  const int64_t reserve = 3 * 49152 + 65536;
  CHECK(check.input == TokenRange{2 * (known + reserve / 4), 2 * (known + reserve)});
  CHECK(check.output == TokenRange{2 * kCheckExpectedOutputBytes, 2 * 65536});
  // Conditional: the expected total and the preflight minimum stay; the worst case grows.
  CHECK(checked.usd.expected == Approx(full.usd.expected));
  CHECK(checked.minimum_usd == Approx(full.minimum_usd));
  CHECK(checked.usd.worst == Approx(full.usd.worst + check.usd->worst));
}

TEST_CASE("CostForecast: a plan without its evaluation (reused) gets no check rows") {
  PlanFixture f;
  BudgetPlan plan = MustPlan(f.Input());
  std::erase_if(plan.stages, [](const StageForecast& s) {
    return s.stage == Role::kEvaluator || s.stage == Role::kRepair;
  });
  const CostForecast forecast =
      ForecastCost(plan, Priced(), {}, {.adaptive = true, .order_check = true});
  for (const StageCost& s : forecast.stages) CHECK_FALSE(s.check);
}

}  // namespace
}  // namespace pi_fusion::budget
