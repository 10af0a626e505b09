// budget-plan.json: the written value conforms to schemas/artifacts/budget-plan.json.
#include <catch2/catch.hpp>

#include "budget/budget_constants.h"
#include "budget/plan_json.h"
#include "json_schema_check.h"
#include "pi_fusion/canonical_json.h"
#include "plan_fixture.h"

namespace pi_fusion::budget {
namespace {

using nlohmann::json;

const json& Schema() {
  static const json schema =
      pi_fusion::testing::LoadSourceJson("schemas/artifacts/budget-plan.json");
  return schema;
}

std::string Errors(const json& value) {
  std::string out;
  for (const std::string& e : pi_fusion::testing::CheckAgainstSchema(Schema(), value)) {
    out += e + "\n";
  }
  return out;
}

TEST_CASE("BudgetPlanJson: plans of every verdict conform to the closed schema file") {
  testing::PlanFixture f;
  SECTION("clean plan") {}
  SECTION("notes") { f.allowed = 10000; }
  SECTION("warnings and notes") {
    f.allowed = 10000;
    f.candidate_system = std::string(8000, 'x');  // 85% of the allowed input
  }
  SECTION("blocked, shorten request") {
    f.allowed = 10000;
    f.request = std::string(12000, 'r');
    f.SetUserPrompts("<", ">");
  }
  SECTION("blocked, model window, multibyte") {
    f.allowed = 10000;
    f.candidate_system = std::string(20000, '\xC3');
  }
  const BudgetPlan plan = testing::MustPlan(f.Input());
  const json value = BudgetPlanToJson(plan);
  CHECK(Errors(value).empty());
  CHECK(value["schema_version"] == "pi-background-tasks.fusion-budget-plan.v4");
  CHECK(value["blocked"] == plan.blocked());
  CHECK(value["stages"].size() == 6);
  CHECK(value["routes"].size() == 5);
  CHECK(value["warnings"].size() == plan.warnings.size());
  CHECK(value["notes"].size() == plan.notes.size());
  for (const json& note : value["notes"]) CHECK(note["kind"] == "worst_case_reservation");
}

TEST_CASE("BudgetPlanJson: the schema is closed and the checker notices drift") {
  testing::PlanFixture f;
  json value = BudgetPlanToJson(testing::MustPlan(f.Input()));
  json extra = value;
  extra["stages"][0]["extra"] = 1;
  CHECK_THAT(Errors(extra), Catch::Contains("/stages/0: unexpected key \"extra\""));
  json missing = value;
  missing["policy"].erase("framing_reserve_tokens");
  CHECK_THAT(Errors(missing), Catch::Contains("missing required key \"framing_reserve_tokens\""));
  json wrong = value;
  wrong["stages"][3]["slot"] = 4;
  CHECK_THAT(Errors(wrong), Catch::Contains("/stages/3/slot: above maximum"));
}

TEST_CASE("BudgetPlanJson: bytes are canonical and record the policy numbers") {
  testing::PlanFixture f;
  const BudgetPlan plan = testing::MustPlan(f.Input());
  const std::string bytes = BudgetPlanBytes(plan);
  CHECK(bytes == CanonicalJson(json::parse(bytes)));
  CHECK(bytes.rfind("{\"blocked\":false,\"blockers\":[]", 0) == 0);
  const json policy = json::parse(bytes)["policy"];
  CHECK(policy["framing_reserve_tokens"] == kFramingReserveTokens);
  CHECK(policy["safety_reserve_tokens"] == 4096);
  CHECK(policy["min_input_tokens"] == 8192);
  CHECK(policy["intercept_tokens"] == 512);
  CHECK(policy["family_rates_x100"] ==
        json{{"anthropic", 173}, {"openai-codex", 289}, {"unknown", 100}});
  const json stage = json::parse(bytes)["stages"][3];
  CHECK(stage["stage"] == "evaluation");
  CHECK(stage["slot"].is_null());
  CHECK(stage["reserved_output_contract_bytes"] == 147456);
  CHECK(stage["rate"]["source"] == "conservative_small_prompt");
}

}  // namespace
}  // namespace pi_fusion::budget
