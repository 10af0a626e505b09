// The cost estimate as the receipt states it: the run's total line, one line per stage, and what
// the figures mean for subscription routes, routes without prices and tool-using candidates.
#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "budget/cost_text.h"
#include "plan_fixture.h"

namespace pi_fusion::budget {
namespace {

using Catch::Matchers::Contains;
using testing::MustPlan;
using testing::PlanFixture;

StageCost Cost(Role stage, int slot, Slot role, std::optional<UsdRange> usd, bool subscription,
               bool conditional = false) {
  StageCost cost;
  cost.stage = stage;
  cost.slot = slot;
  cost.route = role;
  cost.conditional = conditional;
  cost.input = {1000, 4000};
  cost.output = {12288, 49152};
  cost.usd = usd;
  cost.subscription = subscription;
  return cost;
}

// Candidate 1, the evaluation, its repair and the merge; `subscription` marks the evaluator's
// route (the evaluation and its repair) and `unpriced` takes the merger's prices away.
CostForecast Forecast(bool subscription, bool unpriced) {
  CostForecast f;
  f.stages = {
      Cost(Role::kCandidate, 1, Slot::kCandidate1, UsdRange{0.0190, 0.0757}, false),
      Cost(Role::kEvaluator, 0, Slot::kEvaluator, UsdRange{0.0190, 0.0757}, subscription),
      Cost(Role::kRepair, 0, Slot::kEvaluator, UsdRange{0.0190, 0.0757}, subscription, true),
      Cost(Role::kMerger, 0, Slot::kMerger,
           unpriced ? std::nullopt : std::optional<UsdRange>(UsdRange{0.0190, 0.0757}), false)};
  f.input = {3000, 16000};
  f.output = {36864, 196608};
  f.usd = {unpriced ? 0.0380 : 0.0570, unpriced ? 0.2271 : 0.3028};
  f.subscription_stages = subscription ? 2 : 0;
  f.unpriced_stages = unpriced ? 1 : 0;
  return f;
}

// Routes local/scripted-0 (candidate 1) … local/scripted-3 (evaluator), local/scripted-4 (merger).
BudgetPlan Plan() { return MustPlan(PlanFixture().Input()); }

constexpr char kCandidateLine[] =
    "- candidate 1, local/scripted-0: 1,000 – 4,000 input, 12,288 – 49,152 output tokens, "
    "$0.0190 – $0.0757";
constexpr char kMergeLine[] =
    "- merge, local/scripted-4: 1,000 – 4,000 input, 12,288 – 49,152 output tokens, $0.0190 – "
    "$0.0757";

TEST_CASE("CostText: priced routes, no subscription: the figures and nothing more") {
  CHECK(CostEstimateText(Plan(), Forecast(false, false), false) ==
        "Estimate (expected – worst case): 3,000 – 16,000 input and 36,864 – 196,608 output "
        "tokens, $0.0570 – $0.3028. Expected: a quarter of each output cap (this project has "
        "fewer than 3 earlier runs on these routes to learn from).\n" +
            std::string(kCandidateLine) +
            "\n- evaluation, local/scripted-3: 1,000 – 4,000 input, 12,288 – 49,152 output tokens, "
            "$0.0190 – $0.0757\n- evaluation repair (only after an invalid evaluation), "
            "local/scripted-3: 1,000 – 4,000 input, 12,288 – 49,152 output tokens, $0.0190 – "
            "$0.0757\n" +
            kMergeLine);
}

TEST_CASE("CostText: the adaptive panel's check and the order check have lines of their own") {
  CostForecast f = Forecast(false, false);
  f.stages[0].slot = 3;
  f.stages[0].conditional = true;
  StageCost agreement =
      Cost(Role::kEvaluator, 0, Slot::kEvaluator, UsdRange{0.0010, 0.0700}, false);
  agreement.check = Stage::kAgreement;
  StageCost order =
      Cost(Role::kEvaluator, 0, Slot::kEvaluator, UsdRange{0.0020, 0.1400}, false, true);
  order.check = Stage::kOrderCheck;
  order.calls = 2;
  f.stages.push_back(agreement);
  f.stages.push_back(order);
  const std::string text = CostEstimateText(Plan(), f, false);
  CHECK_THAT(text, Contains(" Adaptive panel: the expected figures assume candidates 1 and 2 "
                            "agree and candidate 3 is not asked; the worst case asks it.\n"));
  CHECK_THAT(text, Contains("\n- candidate 3 (only when candidates 1 and 2 disagree), "
                            "local/scripted-0: "));
  CHECK_THAT(text, Contains("\n- agreement check (not asked when the two answers are "
                            "identical), local/scripted-3: 1,000 – 4,000 input"));
  CHECK_THAT(text, Contains("\n- order check, 2 calls (only when the evaluation names "
                            "conflicts), local/scripted-3: "));
  const nlohmann::json json = CostForecastJson(Plan(), f);
  CHECK(json["stages"][4]["stage"] == "agreement");
  CHECK(json["stages"][4]["calls"] == 1);
  CHECK(json["stages"][5]["stage"] == "order_check");
  CHECK(json["stages"][5]["calls"] == 2);
  CHECK(json["stages"][5]["conditional"] == true);
  CHECK_FALSE(json["stages"][0].contains("calls"));
  // An evaluator with tools: its calls are outside the estimate, said once on the total line.
  CHECK_THAT(CostEstimateText(Plan(), f, true, std::nullopt, 12),
             Contains(" The evaluator may make up to 12 tool calls (policy.evaluator_tools), each "
                      "adding a model request that is not in the estimate."));
  CHECK_THAT(text, !Contains("The evaluator may make"));
  // The checks follow their own rule: they do not make the basis "mixed".
  CHECK(ExpectedBasis(f) == "share_of_cap");
}

TEST_CASE("CostText: with a cost cap the total line states the cap's rule and the minimum") {
  CostForecast f = Forecast(false, false);
  f.minimum_usd = 0.0153;
  const std::string text = CostEstimateText(Plan(), f, true, 0.5);
  const std::string head = text.substr(0, text.find('\n'));
  CHECK(head ==
        "Estimate (expected – worst case): 3,000 – 16,000 input and 36,864 – 196,608 output "
        "tokens, $0.0570 – $0.3028. Expected: a quarter of each output cap (this project has "
        "fewer than 3 earlier runs on these routes to learn from). Each tool call a candidate "
        "makes adds a model request that is "
        "not in the estimate. Cost cap $0.5000 (policy.max_cost_usd), a hard bound: every model "
        "request of every child is admitted against it before it is sent, its output limit "
        "lowered to what is left, and the run stops (cost_cap_exceeded) rather than spend more; "
        "the run needs $0.0153 at the least.");
  // Without a cap: not a word of it.
  CHECK(CostEstimateText(Plan(), f, true).find("Cost cap") == std::string::npos);
}

TEST_CASE("CostText: a subscription route's stages are counted against the subscription") {
  CHECK(CostEstimateText(Plan(), Forecast(true, false), false) ==
        "Estimate (expected – worst case): 3,000 – 16,000 input and 36,864 – 196,608 output "
        "tokens, $0.0570 – $0.3028. Expected: a quarter of each output cap (this project has "
        "fewer than 3 earlier runs on these routes to learn from). Stages on a subscription route "
        "are counted against the subscription, not billed per token.\n" +
            std::string(kCandidateLine) +
            "\n- evaluation, local/scripted-3: 1,000 – 4,000 input, 12,288 – 49,152 output tokens, "
            "$0.0190 – $0.0757 at catalog prices, counted against the subscription\n- evaluation "
            "repair (only after an invalid evaluation), local/scripted-3: 1,000 – 4,000 input, "
            "12,288 – 49,152 output tokens, $0.0190 – $0.0757 at catalog prices, counted against "
            "the subscription\n" +
            kMergeLine);
}

TEST_CASE(
    "CostText: subscription, priced and unpriced routes together, with tool-using candidates") {
  CHECK(CostEstimateText(Plan(), Forecast(true, true), true) ==
        "Estimate (expected – worst case): 3,000 – 16,000 input and 36,864 – 196,608 output "
        "tokens, $0.0380 – $0.2271. Expected: a quarter of each output cap (this project has "
        "fewer than 3 earlier runs on these routes to learn from). Stages on a subscription route "
        "are counted against the "
        "subscription, not billed per token. 1 stage(s) run on a route with no price; the "
        "dollars leave them out. Each tool call a candidate makes adds a model request that is "
        "not in the estimate.\n" +
            std::string(kCandidateLine) +
            "\n- evaluation, local/scripted-3: 1,000 – 4,000 input, 12,288 – 49,152 output tokens, "
            "$0.0190 – $0.0757 at catalog prices, counted against the subscription\n- evaluation "
            "repair (only after an invalid evaluation), local/scripted-3: 1,000 – 4,000 input, "
            "12,288 – 49,152 output tokens, $0.0190 – $0.0757 at catalog prices, counted against "
            "the subscription\n- merge, local/scripted-4: 1,000 – 4,000 input, 12,288 – 49,152 "
            "output tokens, no price known");
}

TEST_CASE("CostText: expected figures from earlier runs are said so, in the text and the JSON") {
  std::array<RoutePricing, 5> pricing;
  for (RoutePricing& p : pricing) p.prices = TokenPrices{0.5, 1.5, 0.05, 0.625};
  ObservedRoles all;
  for (auto& role : all) role = ObservedTokens{2000, 100, 4};
  const CostForecast learned = ForecastCost(Plan(), pricing, all);
  const std::string text = CostEstimateText(Plan(), learned, true);
  CHECK_THAT(text, Catch::Contains("Expected: what each role used in this project's earlier runs "
                                   "on the same routes (the median)."));
  CHECK_THAT(text, Catch::Contains("- candidate 1, local/scripted-0: 2,000 – "));
  CHECK_THAT(text, Catch::Contains(" input, 100 – 49,152 output tokens (expected: the median of 4 "
                                   "earlier runs), $0.001"));
  CHECK_THAT(text, Catch::Contains("The expected figures include the candidates' tool turns"));
  CHECK_THAT(text, !Catch::Contains("Each tool call a candidate makes"));
  const nlohmann::json json = CostForecastJson(Plan(), learned);
  CHECK(json["expected_basis"] == "earlier_runs");
  CHECK(json["stages"][0]["expected_basis"] == "earlier_runs");
  CHECK(json["stages"][0]["history_runs"] == 4);
  CHECK(json["stages"][4]["expected_basis"] == "share_of_cap");  // the repair is conditional
  CHECK(EstimateSummaryJson(learned)["expected_basis"] == "earlier_runs");

  ObservedRoles some;
  some[0] = ObservedTokens{2000, 100, 3};
  const CostForecast mixed = ForecastCost(Plan(), pricing, some);
  CHECK(ExpectedBasis(mixed) == "mixed");
  CHECK_THAT(CostEstimateText(Plan(), mixed, false),
             Catch::Contains("Expected: the median of this project's earlier runs where a role "
                             "has 3 on the same route, else a quarter of each output cap."));
  CHECK(ExpectedBasis(Forecast(false, false)) == "share_of_cap");
}

TEST_CASE("CostText: the launch details mark each subscription stage and count them") {
  const nlohmann::json json = CostForecastJson(Plan(), Forecast(true, true));
  CHECK(json["subscription_stages"] == 2);
  CHECK(json["unpriced_stages"] == 1);
  CHECK(json["stages"][0]["subscription"] == false);
  CHECK(json["stages"][1]["subscription"] == true);
  CHECK(json["stages"][2]["subscription"] == true);
  CHECK(json["stages"][3]["usd"].is_null());
}

}  // namespace
}  // namespace pi_fusion::budget
