// Validate's findings accounting (src/workflow/validation_accounting.h) inside the evaluation
// contract (src/workflow/evaluation_contract.h).
#include "workflow/validation_accounting.h"

#include <functional>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

const std::vector<std::string> kSources = {"A-F001", "A-F002", "B-F001"};

json Group(const std::string& id, std::vector<std::string> sources) {
  return {{"group_id", id},
          {"source_ids", std::move(sources)},
          {"severity", "high"},
          {"location", "src/config.cc:12"},
          {"evidence", "line 12 reads the length before the null check"},
          {"impact", "a null config crashes the loader"},
          {"summary", "null dereference in LoadConfig"},
          {"rationale", "both reviewers cite the same line"}};
}

// A-F001 and B-F001 are one issue (group "null-deref"); A-F002 is excluded.
json GoodAccounting() {
  return {{"findings", kSources},
          {"decisions",
           {{{"source_id", "A-F001"},
             {"disposition", "include"},
             {"rationale", "reproducible from the code"},
             {"group_id", "null-deref"}},
            {{"source_id", "A-F002"}, {"disposition", "exclude"}, {"rationale", "style only"}},
            {{"source_id", "B-F001"},
             {"disposition", "include"},
             {"rationale", "same defect"},
             {"group_id", "null-deref"}}}},
          {"groups", {Group("null-deref", {"A-F001", "B-F001"})}}};
}

json Assessment(const std::string& id) {
  return {{"candidate_id", id},
          {"summary", "Reviewer " + id + " read the loader."},
          {"strengths", json::array()},
          {"limitations", json::array()},
          {"useful_contributions", {"the null check"}},
          {"risks", json::array()}};
}

json GoodEvaluation() {
  return {{"schema_version", kEvaluationSchema},
          {"candidate_assessments", {Assessment("A"), Assessment("B")}},
          {"agreements", json::array()},
          {"conflicts", json::array()},
          {"synthesis_plan",
           {{"must_include", json::array()},
            {"must_resolve", json::array()},
            {"must_avoid", json::array()}}},
          {"validation_accounting", GoodAccounting()}};
}

EvaluationScope Scope() { return {{"A", "B"}, kSources}; }

std::vector<EvaluationError> AccountingErrorsAfter(const std::function<void(json&)>& mutate) {
  json accounting = GoodAccounting();
  mutate(accounting);
  return CheckValidationAccounting(accounting, kSources, "$.validation_accounting");
}

}  // namespace

TEST_CASE("ValidationAccounting: a complete accounting passes and matches the schema",
          "[workflow][validation]") {
  CHECK(AccountingErrorsAfter([](json&) {}).empty());
  const EvaluationCheck check = ValidateEvaluation(GoodEvaluation().dump(), Scope());
  CHECK(check.errors.empty());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-evaluation.v1.json"), GoodEvaluation())
            .empty());
  const ValidationAccounting parsed = AccountingFromJson(GoodAccounting());
  REQUIRE(parsed.decisions.size() == 3);
  CHECK(parsed.decisions[0].group_id == "null-deref");
  CHECK_FALSE(parsed.decisions[1].include);
  CHECK_FALSE(parsed.decisions[1].group_id.has_value());
  REQUIRE(parsed.groups.size() == 1);
  CHECK(parsed.groups[0].source_ids == std::vector<std::string>{"A-F001", "B-F001"});
}

TEST_CASE("ValidationAccounting: zero findings need empty lists and nothing else",
          "[workflow][validation]") {
  const json empty = {
      {"findings", json::array()}, {"decisions", json::array()}, {"groups", json::array()}};
  CHECK(CheckValidationAccounting(empty, {}, "$.v").empty());
  json evaluation = GoodEvaluation();
  evaluation["validation_accounting"] = empty;
  CHECK(ValidateEvaluation(evaluation.dump(), {{"A", "B"}, std::vector<std::string>{}}).ok());
}

TEST_CASE("ValidationAccounting: each violation is named precisely for the repair",
          "[workflow][validation]") {
  using E = EvaluationError;
  const std::string p = "$.validation_accounting";
  struct Case {
    const char* name;
    std::function<void(json&)> mutate;
    std::vector<EvaluationError> expected;
  };
  const std::vector<Case> cases = {
      {"id missing from findings",
       [](json& a) { a["findings"].erase(1); },
       {E{p + ".findings", "missing source finding id A-F002"}}},
      {"duplicate id in findings",
       [](json& a) { a["findings"].push_back("A-F001"); },
       {E{p + ".findings[3]",
          "duplicate source finding id A-F001 (also at " + p + ".findings[0])"}}},
      {"unknown id in findings",
       [](json& a) { a["findings"].push_back("C-F001"); },
       {E{p + ".findings[3]", "unknown source finding id \"C-F001\""}}},
      {"finding id as a number",
       [](json& a) { a["findings"][2] = 3; },
       {E{p + ".findings[2]", "expected a source finding id string"},
        E{p + ".findings", "missing source finding id B-F001"}}},
      {"missing decision",
       [](json& a) { a["decisions"].erase(1); },
       {E{p + ".decisions", "no decision for source finding A-F002"}}},
      {"duplicate decision",
       [](json& a) {
         a["decisions"].push_back(
             {{"source_id", "A-F002"}, {"disposition", "exclude"}, {"rationale", "again"}});
       },
       {E{p + ".decisions[3].source_id",
          "source finding A-F002 already has a decision at " + p + ".decisions[1]"}}},
      {"decision for an unknown id",
       [](json& a) { a["decisions"][1]["source_id"] = "A-F009"; },
       {E{p + ".decisions[1].source_id", "unknown source finding id \"A-F009\""},
        E{p + ".decisions", "no decision for source finding A-F002"}}},
      {"included decision naming an unknown group",
       [](json& a) { a["decisions"][0]["group_id"] = "G9"; },
       {E{p + ".decisions[0].group_id", "no group has group_id \"G9\""},
        E{p + ".groups[0].source_ids[0]", "the decision for A-F001 names group \"G9\""}}},
      {"included decision naming no group",
       [](json& a) { a["decisions"][2].erase("group_id"); },
       {E{p + ".decisions[2].group_id", "an included finding must name its group"}}},
      {"included decision whose group does not list it",
       [](json& a) { a["groups"][0]["source_ids"] = {"A-F001"}; },
       {E{p + ".decisions[2].group_id", "group \"null-deref\" does not list B-F001"}}},
      {"excluded id inside a group",
       [](json& a) { a["groups"][0]["source_ids"].push_back("A-F002"); },
       {E{p + ".groups[0].source_ids[2]",
          "source finding A-F002 is excluded by its decision, so it belongs to no group"}}},
      {"excluded decision naming a group",
       [](json& a) { a["decisions"][1]["group_id"] = "null-deref"; },
       {E{p + ".decisions[1].group_id", "an excluded finding belongs to no group"}}},
      {"group with no ids",
       [](json& a) { a["groups"].push_back(Group("empty", {})); },
       {E{p + ".groups[1].source_ids", "a group lists at least one source finding id"}}},
      {"id in two groups",
       [](json& a) { a["groups"].push_back(Group("again", {"B-F001"})); },
       {E{p + ".groups[1].source_ids[0]",
          "source finding B-F001 is already in " + p + ".groups[0]"}}},
      {"duplicate group id",
       [](json& a) { a["groups"].push_back(Group("null-deref", {"A-F002"})); },
       {E{p + ".groups[1].group_id",
          "duplicate group_id \"null-deref\" (also at " + p + ".groups[0])"},
        E{p + ".groups[1].source_ids[0]",
          "source finding A-F002 is excluded by its decision, so it belongs to no group"}}},
      {"blank group id",
       [](json& a) { a["groups"][0]["group_id"] = " "; },
       {E{p + ".decisions[0].group_id", "no group has group_id \"null-deref\""},
        E{p + ".decisions[2].group_id", "no group has group_id \"null-deref\""},
        E{p + ".groups[0].group_id", "must not be blank"}}},
      {"unknown disposition",
       [](json& a) { a["decisions"][1]["disposition"] = "defer"; },
       {E{p + ".decisions[1].disposition", "must be one of include, exclude"}}},
      {"unknown severity in a group",
       [](json& a) { a["groups"][0]["severity"] = "medium"; },
       {E{p + ".groups[0].severity", "must be one of critical, high, minor"}}},
      {"blank rationale",
       [](json& a) { a["decisions"][1]["rationale"] = ""; },
       {E{p + ".decisions[1].rationale", "must not be blank"}}},
      {"extra key in a group",
       [](json& a) { a["groups"][0]["confidence"] = "high"; },
       {E{p + ".groups[0].confidence", "unsupported key"}}},
      {"missing groups",
       [](json& a) { a.erase("groups"); },
       {E{p + ".groups", "missing required key"},
        E{p + ".decisions[0].group_id", "no group has group_id \"null-deref\""},
        E{p + ".decisions[2].group_id", "no group has group_id \"null-deref\""}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(AccountingErrorsAfter(c.mutate) == c.expected);
  }
}

TEST_CASE("ValidationAccounting: the evaluation requires it in validate runs only",
          "[workflow][validation]") {
  json evaluation = GoodEvaluation();
  SECTION("validate without accounting") {
    evaluation.erase("validation_accounting");
    CHECK(ValidateEvaluation(evaluation.dump(), Scope()).errors ==
          std::vector<EvaluationError>{{"$.validation_accounting", "missing required key"}});
  }
  SECTION("another workflow with accounting") {
    evaluation["candidate_assessments"].push_back(Assessment("C"));
    CHECK(
        ValidateEvaluation(evaluation.dump()).errors ==
        std::vector<EvaluationError>{{"$.validation_accounting",
                                      "unsupported key: only validate runs account for findings"}});
  }
  SECTION("accounting errors carry their full path") {
    evaluation["validation_accounting"]["findings"].erase(0);
    CHECK(ValidateEvaluation(evaluation.dump(), Scope()).errors ==
          std::vector<EvaluationError>{
              {"$.validation_accounting.findings", "missing source finding id A-F001"}});
  }
  SECTION("two reviewers: C is not a candidate") {
    evaluation["candidate_assessments"].push_back(Assessment("C"));
    CHECK(ValidateEvaluation(evaluation.dump(), Scope()).errors ==
          std::vector<EvaluationError>{
              {"$.candidate_assessments[2].candidate_id", "must be one of A, B"}});
  }
  SECTION("two reviewers: both need an assessment") {
    evaluation["candidate_assessments"].erase(1);
    CHECK(ValidateEvaluation(evaluation.dump(), Scope()).errors ==
          std::vector<EvaluationError>{
              {"$.candidate_assessments", "missing assessment for candidate B"}});
  }
}

}  // namespace pi_fusion::workflow
