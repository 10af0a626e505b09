#include <catch2/catch.hpp>

#include <string>

#include "budget/budget_constants.h"
#include "budget/plan_json.h"
#include "budget/planner.h"
#include "plan_fixture.h"

namespace pi_fusion::budget {
namespace {

using testing::MustPlan;
using testing::PlanFixture;

const StageForecast& StageOf(const BudgetPlan& plan, Role stage, int slot = 0) {
  for (const StageForecast& s : plan.stages) {
    if (s.stage == stage && s.slot == slot) return s;
  }
  throw std::runtime_error("no such stage");
}

TEST_CASE("Planner: six stages in pipeline order with the contract's reservations") {
  PlanFixture f;
  const BudgetPlan plan = MustPlan(f.Input());
  REQUIRE(plan.stages.size() == 6);
  struct Row {
    Role stage;
    int slot;
    Slot route;
    bool conditional;
    int64_t reserve;
  };
  const Row rows[] = {
      {Role::kCandidate, 1, Slot::kCandidate1, false, 0},
      {Role::kCandidate, 2, Slot::kCandidate2, false, 0},
      {Role::kCandidate, 3, Slot::kCandidate3, false, 0},
      {Role::kEvaluator, 0, Slot::kEvaluator, false, 3 * 49152},
      {Role::kRepair, 0, Slot::kEvaluator, true, 3 * 49152 + 65536 + 8192},
      {Role::kMerger, 0, Slot::kMerger, false, 3 * 49152 + 65536},
  };
  for (size_t i = 0; i < 6; ++i) {
    const StageForecast& s = plan.stages[i];
    INFO(s.Label());
    CHECK(s.stage == rows[i].stage);
    CHECK(s.slot == rows[i].slot);
    CHECK(s.route == rows[i].route);
    CHECK(s.conditional == rows[i].conditional);
    CHECK(s.reserved_output_contract_bytes == rows[i].reserve);
  }
  CHECK(plan.stages[4].Label() == "evaluation repair");
  CHECK(plan.stages[1].Label() == "candidate 2");
  CHECK_FALSE(plan.blocked());
  CHECK(CheckPlan(plan).ok());
  CHECK(plan.remediation.id == RemediationId::kNone);
}

TEST_CASE("Planner: stage forecasts are system + user bytes plus the reservation") {
  PlanFixture f;
  f.candidate_system = std::string(1000, 'x');
  f.evaluation_system = std::string(2000, 'x');
  f.repair_system = std::string(3000, 'x');
  f.merge_system = std::string(4000, 'x');
  const BudgetPlan plan = MustPlan(f.Input());
  // Local routes: one token per byte, + 512.
  CHECK(StageOf(plan, Role::kCandidate, 3).input_tokens == 1003 + 512);
  CHECK(StageOf(plan, Role::kCandidate, 3).estimate.tokens == 1003 + 512);
  CHECK(StageOf(plan, Role::kEvaluator).input_tokens == 2003 + 512);
  CHECK(StageOf(plan, Role::kEvaluator).estimate.tokens == 2003 + 512 + 147456);
  CHECK(StageOf(plan, Role::kRepair).estimate.tokens == 3003 + 512 + 221184);
  CHECK(StageOf(plan, Role::kMerger).estimate.tokens == 4003 + 512 + 212992);
  CHECK(StageOf(plan, Role::kMerger).estimate.bytes.unknown_output_contract == 212992);
}

TEST_CASE("Planner: validate's evaluator reserves the reviews twice (whole, and as findings)") {
  PlanFixture f;
  PlanInput in = f.Input();
  in.evaluation_answer_copies = 2;
  const BudgetPlan plan = MustPlan(in);
  CHECK(StageOf(plan, Role::kEvaluator).reserved_output_contract_bytes == 2 * 147456);
  CHECK(StageOf(plan, Role::kRepair).reserved_output_contract_bytes == 221184 + 147456);
  CHECK(StageOf(plan, Role::kMerger).reserved_output_contract_bytes == 212992);  // unchanged
  CHECK(
      BudgetPlanToJson(plan)["conditional_repair_reservation"]["reserved_output_contract_bytes"] ==
      221184 + 147456);
  // A window that holds one copy of the reviews but not two: the worst case no longer fits, which
  // the receipt says (a warning, as for every worst-case reservation: the input itself fits).
  in.routes[3].context_window = testing::WindowFor(200000);
  const BudgetPlan tight = MustPlan(in);
  CHECK_FALSE(StageOf(tight, Role::kEvaluator).forecast_fits);
  REQUIRE_FALSE(tight.notes.empty());
  CHECK(tight.stages[tight.notes[0].stage_index].stage == Role::kEvaluator);
  in.evaluation_answer_copies = 1;
  CHECK(StageOf(MustPlan(in), Role::kEvaluator).forecast_fits);
}

TEST_CASE("Planner: each stage is measured against its own route") {
  PlanFixture f;
  PlanInput in = f.Input();
  in.routes[4].context_window = testing::WindowFor(300000);  // merger
  in.routes[3] = RouteSpec{Slot::kEvaluator, "anthropic", "claude", 1000000, 64000};
  const BudgetPlan plan = MustPlan(in);
  CHECK(StageOf(plan, Role::kMerger).allowed_input == 300000);
  CHECK(StageOf(plan, Role::kEvaluator).allowed_input == 200000 - 64000 - 8192);
  CHECK(StageOf(plan, Role::kRepair).allowed_input == 200000 - 64000 - 8192);
  CHECK(StageOf(plan, Role::kEvaluator).estimate.rate.family == Family::kAnthropic);
  CHECK(StageOf(plan, Role::kCandidate, 1).allowed_input == 400000);
}

TEST_CASE("Planner: warns when a stage's known input reaches exactly 80%, not below") {
  PlanFixture f;                  // allowed 400000; 80% = 320000 tokens
  const int64_t fixed = 512 + 3;  // intercept + "REQ"
  SECTION("at 80%") {
    f.evaluation_system = std::string(320000 - fixed, 'x');
    const BudgetPlan plan = MustPlan(f.Input());
    REQUIRE(StageOf(plan, Role::kEvaluator).input_tokens == 320000);
    REQUIRE(plan.warnings.size() == 1);
    CHECK(plan.warnings[0].kind == WarningKind::kHighUtilization);
    CHECK(plan.stages[plan.warnings[0].stage_index].stage == Role::kEvaluator);
    CHECK_THAT(plan.warnings[0].message,
               Catch::Contains("80.00%") && Catch::Contains("320000 of 400000 allowed input"));
    CHECK(plan.notes.empty());  // a warning or a note, never both
    CHECK_FALSE(plan.blocked());
  }
  SECTION("one token below 80% (displayed rounded up, still no warning; the worst case a note)") {
    f.evaluation_system = std::string(320000 - fixed - 1, 'x');
    const BudgetPlan plan = MustPlan(f.Input());
    CHECK(StageOf(plan, Role::kEvaluator).input_utilization_bp == 8000);
    CHECK(plan.warnings.empty());
    REQUIRE(plan.notes.size() == 1);
    CHECK(plan.notes[0].kind == WarningKind::kWorstCaseReservation);
    CHECK(plan.stages[plan.notes[0].stage_index].stage == Role::kEvaluator);
  }
}

TEST_CASE("Planner: worst-case reservation pressure is a note, neither a warning nor a blocker") {
  PlanFixture f;
  f.allowed = 10000;  // input fits, 3 x 48 KiB of candidate output would not
  const BudgetPlan plan = MustPlan(f.Input());
  CHECK_FALSE(plan.blocked());
  CHECK(CheckPlan(plan).ok());
  CHECK(plan.warnings.empty());
  REQUIRE(plan.notes.size() == 3);  // evaluation, repair, merge
  for (const BudgetWarning& w : plan.notes) {
    CHECK(w.kind == WarningKind::kWorstCaseReservation);
    CHECK_THAT(w.message, Catch::Contains("measured again before launch"));
  }
  CHECK(StageOf(plan, Role::kMerger).input_fits);
  CHECK_FALSE(StageOf(plan, Role::kMerger).forecast_fits);
}

TEST_CASE("Planner: a 200K route's usual run has no warning, only reservation notes") {
  // The case the seed's rule got wrong: every run of a 128K or 200K route warned.
  PlanFixture f;
  f.allowed = 200000 - 32768 - 4096;
  const BudgetPlan plan = MustPlan(f.Input());
  CHECK(plan.warnings.empty());
  CHECK_FALSE(plan.notes.empty());
}

TEST_CASE("Planner: a conditional repair that cannot fit warns and does not block") {
  PlanFixture f;
  f.allowed = 10000;
  f.repair_system = std::string(10000, 'x');
  const BudgetPlan plan = MustPlan(f.Input());
  CHECK_FALSE(plan.blocked());
  const StageForecast& repair = StageOf(plan, Role::kRepair);
  CHECK_FALSE(repair.input_fits);
  bool found = false;
  for (const BudgetWarning& w : plan.warnings) {
    if (w.kind != WarningKind::kConditionalRepairInput) continue;
    found = true;
    CHECK(plan.stages[w.stage_index].stage == Role::kRepair);
    CHECK_THAT(w.message, Catch::Contains("Evaluator route local/scripted-3"));
  }
  CHECK(found);
}

TEST_CASE("Planner: a stage whose known input does not fit blocks the run") {
  PlanFixture f;
  f.allowed = 10000;
  f.merge_system = std::string(10000 - 512 - 3 + 1, 'x');  // one token over
  const BudgetPlan plan = MustPlan(f.Input());
  REQUIRE(plan.blockers.size() == 1);
  CHECK(plan.stages[plan.blockers[0].stage_index].stage == Role::kMerger);
  CHECK(plan.blockers[0].overage_tokens == 1);
  const Status s = CheckPlan(plan);
  CHECK(s.code() == "prompt_budget_exceeded_forecast");
  CHECK_THAT(s.message(), Catch::Contains("merge stage on Merger route local/scripted-4") &&
                              Catch::Contains("10001 input tokens against 10000") &&
                              Catch::Contains("No child was started"));
}

TEST_CASE("Planner: remediation says shortening the request can help") {
  PlanFixture f;
  f.allowed = 10000;
  f.request = std::string(12000, 'r');
  f.SetUserPrompts("{\"request\":\"", "\"}");
  const BudgetPlan plan = MustPlan(f.Input());
  REQUIRE(plan.blocked());
  CHECK(plan.blockers.size() == 5);  // every non-conditional stage
  CHECK(plan.empty_request.fits);
  CHECK(plan.empty_request.removed_bytes == 12000);
  CHECK(plan.remediation.id == RemediationId::kShortenRequest);
  CHECK(plan.remediation.shortening_request_can_help);
  const Status s = CheckPlan(plan);
  CHECK_THAT(s.message(), Catch::Contains("candidate 1 stage on Candidate 1 route") &&
                              Catch::Contains("Shortening the request can help") &&
                              Catch::Contains("12000 UTF-8 bytes") &&
                              Catch::Contains("Also blocked: candidate 2, candidate 3, "
                                              "evaluation, merge."));
}

TEST_CASE("Planner: remediation names the session history when it is the blocker") {
  PlanFixture f;
  f.allowed = 10000;
  f.history = std::string(12000, 'h');
  f.SetUserPrompts("[", "]" + f.history);
  const BudgetPlan plan = MustPlan(f.Input());
  REQUIRE(plan.blocked());
  CHECK_FALSE(plan.empty_request.fits);
  CHECK(plan.empty_request_and_history.fits);
  CHECK(plan.remediation.id == RemediationId::kReduceSessionHistory);
  CHECK_FALSE(plan.remediation.shortening_request_can_help);
  CHECK_THAT(CheckPlan(plan).message(),
             Catch::Contains("Shortening the request cannot help: the session history (12000"));
}

TEST_CASE("Planner: remediation names the model window when fixed prompts do not fit") {
  PlanFixture f;
  f.allowed = 10000;
  f.history = "H";
  f.SetUserPrompts("", f.history);
  f.evaluation_system = std::string(20000, 'x');
  const BudgetPlan plan = MustPlan(f.Input());
  REQUIRE(plan.blocked());
  CHECK(plan.remediation.id == RemediationId::kChooseLargerModel);
  CHECK_FALSE(plan.remediation.shortening_request_can_help);
  CHECK(plan.empty_request_and_history.blocking_stages.size() == 1);
  CHECK_THAT(plan.remediation.text,
             Catch::Contains("cannot help") && Catch::Contains("evaluation stage") &&
                 Catch::Contains("Evaluator route local/scripted-3") &&
                 Catch::Contains("and no session history") &&
                 Catch::Contains("Choose a larger-context model for Evaluator"));
}

TEST_CASE("Planner: dense ASCII and multibyte diagnostics reach the message") {
  PlanFixture f;
  f.allowed = 10000;
  SECTION("dense payload on a codex route") {
    PlanInput in;
    f.candidate_system = std::string(60000, 'A');  // base64-like: no white space
    in = f.Input();
    for (RouteSpec& r : in.routes) r.provider = "openai-codex";
    const BudgetPlan plan = MustPlan(in);
    const StageForecast& c = StageOf(plan, Role::kCandidate, 1);
    CHECK(c.estimate.rate.source == RateSource::kConservativeLowWhitespace);
    CHECK(c.estimate.rate.effective_x100 == 200);
    CHECK_THAT(CheckPlan(plan).message(),
               Catch::Contains("dense ASCII") && Catch::Contains("2.00 bytes/token"));
  }
  SECTION("multibyte-heavy prompt") {
    std::string cjk;
    for (int i = 0; i < 4000; ++i) cjk += "\xE4\xB8\xAD";  // U+4E2D
    f.candidate_system = cjk;
    const BudgetPlan plan = MustPlan(f.Input());
    CHECK_THAT(CheckPlan(plan).message(), Catch::Contains("multibyte UTF-8"));
  }
}

TEST_CASE("Planner: broken preconditions are orchestration_failed") {
  PlanFixture f;
  SECTION("request missing from a prompt") {
    f.merge_user = "something else";
    auto plan = PlanBudget(f.Input());
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.status().code() == "orchestration_failed");
    CHECK_THAT(plan.status().message(), Catch::Contains("merge prompt"));
  }
  SECTION("routes out of order") {
    PlanInput in = f.Input();
    std::swap(in.routes[3], in.routes[4]);
    auto plan = PlanBudget(in);
    REQUIRE_FALSE(plan.ok());
    CHECK(plan.status().code() == "orchestration_failed");
  }
}

TEST_CASE("Planner: an unusable route fails planning with model_capacity_unknown") {
  PlanFixture f;
  PlanInput in = f.Input();
  in.routes[4].context_window = 32768;
  auto plan = PlanBudget(in);
  REQUIRE_FALSE(plan.ok());
  CHECK(plan.status().code() == "model_capacity_unknown");
  CHECK_THAT(plan.status().message(), Catch::StartsWith("Merger route local/scripted-4"));
}

}  // namespace
}  // namespace pi_fusion::budget
