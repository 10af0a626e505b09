// The blind evaluator's output contract (src/workflow/evaluation_contract.h).
#include "workflow/evaluation_contract.h"

#include <functional>

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "workflow/stage_prompts.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

json Assessment(const std::string& id) {
  return {{"candidate_id", id},
          {"summary", "Answer " + id + " explains the link error."},
          {"strengths", {"names the missing object file"}},
          {"limitations", json::array()},
          {"useful_contributions", {"the CMake snippet"}},
          {"risks", json::array()}};
}

json GoodEvaluation() {
  return {{"schema_version", kEvaluationSchema},
          {"candidate_assessments", {Assessment("B"), Assessment("A"), Assessment("C")}},
          {"agreements", {"foo.cc is not compiled into the target"}},
          {"conflicts",
           {{{"topic", "where to add foo.cc"},
             {"positions",
              {{{"candidate_id", "A"}, {"position", "add_executable"}},
               {{"candidate_id", "C"}, {"position", "a separate library"}}}},
             {"resolution", "add_executable is the smaller change"}}}},
          {"synthesis_plan",
           {{"must_include", {{{"candidate_id", "B"}, {"contribution", "the CMake snippet"}}}},
            {"must_resolve", json::array()},
            {"must_avoid", {"claiming foo() is undefined in the source"}}}}};
}

std::vector<EvaluationError> Errors(const std::string& output) {
  return ValidateEvaluation(output).errors;
}

std::vector<EvaluationError> ErrorsAfter(const std::function<void(json&)>& mutate) {
  json evaluation = GoodEvaluation();
  mutate(evaluation);
  return Errors(evaluation.dump());
}

}  // namespace

TEST_CASE("EvaluationContract: accepts a good evaluation, with surrounding whitespace",
          "[workflow][evaluation]") {
  const std::string text = GoodEvaluation().dump(2);
  const EvaluationCheck check = ValidateEvaluation("\n  " + text + "\n\n");
  REQUIRE(check.ok());
  CHECK(*check.evaluation == GoodEvaluation());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-evaluation.v1.json"), *check.evaluation)
            .empty());
}

TEST_CASE("EvaluationContract: a number too large for a double is an error, not an exception",
          "[workflow][evaluation]") {
  // Found by fuzzing (fuzz/regressions/evaluation/number_overflow.json).
  const std::vector<EvaluationError> errors = Errors("{\"agreements\":[1e999]}");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].path == "$");
  CHECK_THAT(errors[0].message, Catch::Contains("number overflow"));
}

TEST_CASE("EvaluationContract: the prompt's template is itself valid", "[workflow][evaluation]") {
  const EvaluationCheck check = ValidateEvaluation(EvaluationTemplate());
  CHECK(check.errors.empty());
  CHECK(EvaluatorSystemPrompt().find(EvaluationTemplate()) != std::string::npos);
}

TEST_CASE("EvaluationContract: rejects each violation with its JSON path",
          "[workflow][evaluation]") {
  using E = EvaluationError;
  struct Case {
    const char* name;
    std::function<void(json&)> mutate;
    std::vector<EvaluationError> expected;
  };
  const std::vector<Case> cases = {
      {"missing candidate",
       [](json& e) { e["candidate_assessments"].erase(2); },
       {E{"$.candidate_assessments", "missing assessment for candidate C"}}},
      {"duplicate candidate",
       [](json& e) { e["candidate_assessments"][2]["candidate_id"] = "A"; },
       {E{"$.candidate_assessments[2].candidate_id", "duplicate assessment for candidate A"},
        E{"$.candidate_assessments", "missing assessment for candidate C"}}},
      {"fourth assessment",
       [](json& e) { e["candidate_assessments"].push_back(Assessment("B")); },
       {E{"$.candidate_assessments[3].candidate_id", "duplicate assessment for candidate B"}}},
      {"unknown candidate id",
       [](json& e) { e["candidate_assessments"][0]["candidate_id"] = "D"; },
       {E{"$.candidate_assessments[0].candidate_id", "must be one of A, B, C"},
        E{"$.candidate_assessments", "missing assessment for candidate B"}}},
      {"extra top-level key", [](json& e) { e["notes"] = "x"; }, {E{"$.notes", "unsupported key"}}},
      {"extra nested key",
       [](json& e) { e["synthesis_plan"]["order"] = json::array(); },
       {E{"$.synthesis_plan.order", "unsupported key"}}},
      {"missing key",
       [](json& e) { e.erase("agreements"); },
       {E{"$.agreements", "missing required key"}}},
      {"wrong schema version",
       [](json& e) { e["schema_version"] = "v0"; },
       {E{"$.schema_version", "must be \"pi-background-tasks.fusion-evaluation.v1\""}}},
      {"conflict with one position",
       [](json& e) { e["conflicts"][0]["positions"].erase(1); },
       {E{"$.conflicts[0].positions",
          "a conflict needs positions from at least 2 distinct candidates"}}},
      {"two positions by one candidate",
       [](json& e) { e["conflicts"][0]["positions"][1]["candidate_id"] = "A"; },
       {E{"$.conflicts[0].positions[1].candidate_id", "duplicate position for candidate A"},
        E{"$.conflicts[0].positions",
          "a conflict needs positions from at least 2 distinct candidates"}}},
      {"score nested in an assessment",
       [](json& e) { e["candidate_assessments"][1]["score"] = 9; },
       {E{"$.candidate_assessments[1].score",
          "forbidden key: a blind evaluation has no score, rank or winner"}}},
      {"ranking deep inside an unsupported key",
       [](json& e) {
         e["extra"] = {{"list", {{{"Final_Ranking", {"A"}}}}}};
       },
       {E{"$.extra.list[0].Final_Ranking",
          "forbidden key: a blind evaluation has no score, rank or winner"},
        E{"$.extra", "unsupported key"}}},
      {"winner and best_answer at the top",
       [](json& e) {
         e["winner"] = "A";
         e["best_answer"] = "B";
       },
       {E{"$.best_answer", "forbidden key: a blind evaluation has no score, rank or winner"},
        E{"$.winner", "forbidden key: a blind evaluation has no score, rank or winner"}}},
      {"blank summary",
       [](json& e) { e["candidate_assessments"][0]["summary"] = " \n\t"; },
       {E{"$.candidate_assessments[0].summary", "must not be blank"}}},
      {"blank list item",
       [](json& e) { e["agreements"].push_back(""); },
       {E{"$.agreements[1]", "must not be blank"}}},
      {"blank (no-break space) contribution",
       [](json& e) { e["synthesis_plan"]["must_include"][0]["contribution"] = "\u00a0"; },
       {E{"$.synthesis_plan.must_include[0].contribution", "must not be blank"}}},
      {"string where a list belongs",
       [](json& e) { e["candidate_assessments"][0]["risks"] = "x"; },
       {E{"$.candidate_assessments[0].risks", "expected an array"}}},
      {"number in a list",
       [](json& e) { e["synthesis_plan"]["must_avoid"] = {1}; },
       {E{"$.synthesis_plan.must_avoid[0]", "expected a string"}}},
      {"must_include from an unknown candidate",
       [](json& e) { e["synthesis_plan"]["must_include"][0]["candidate_id"] = "Z"; },
       {E{"$.synthesis_plan.must_include[0].candidate_id", "must be one of A, B, C"}}},
      {"not an object at the root",
       [](json& e) { e = json::array({e}); },
       {E{"$", "expected an object"}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(ErrorsAfter(c.mutate) == c.expected);
  }
}

TEST_CASE("EvaluationContract: strict parse of the whole output", "[workflow][evaluation]") {
  const std::string good = GoodEvaluation().dump();
  struct Case {
    const char* name;
    std::string output;
    const char* message_part;
  };
  const std::vector<Case> cases = {
      {"fenced JSON", "```json\n" + good + "\n```", "Markdown code fences are not allowed"},
      {"trailing text", good + "\nHope this helps!", "not a single JSON value"},
      {"leading text", "Here it is: " + good, "not a single JSON value"},
      {"two objects", good + good, "not a single JSON value"},
      {"empty", "  \n ", "the evaluator output is empty"},
      {"duplicate key", R"({"agreements":[],"agreements":[]})", "duplicate key in one object"},
      {"invalid UTF-8", "{\"x\":\"\xff\"}", "not a single JSON value"},
      {"too deep", std::string(40, '[') + std::string(40, ']'), "nesting deeper than 32"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const std::vector<EvaluationError> errors = Errors(c.output);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == "$");
    CHECK_THAT(errors[0].message, Catch::Contains(c.message_part));
  }
}

TEST_CASE("EvaluationContract: error list is capped for the repair input",
          "[workflow][evaluation]") {
  SECTION("a short list is kept as it is") {
    const std::vector<EvaluationError> errors = {{"$.a", "unsupported key"}};
    CHECK(CapValidationErrors(errors) == std::vector<std::string>{"$.a: unsupported key"});
  }
  SECTION("at most 24 errors plus a note") {
    std::vector<EvaluationError> errors;
    for (int i = 0; i < 30; ++i) errors.push_back({"$.k" + std::to_string(i), "unsupported key"});
    const std::vector<std::string> capped = CapValidationErrors(errors);
    REQUIRE(capped.size() == kRepairMaxErrors + 1);
    CHECK(capped[23] == "$.k23: unsupported key");
    CHECK(capped.back() == "[6 more validation error(s) omitted]");
  }
  SECTION("exactly 24 errors need no note") {
    std::vector<EvaluationError> errors(24, {"$.k", "unsupported key"});
    CHECK(CapValidationErrors(errors).size() == 24);
  }
  SECTION("each error at most 500 bytes, cut on a UTF-8 boundary") {
    // "é" occupies bytes 496-497, so a cut at 497 would split it.
    const std::vector<EvaluationError> errors = {
        {"$." + std::string(300, 'x'), std::string(192, 'y') + "\xc3\xa9" + std::string(20, 'z')}};
    const std::vector<std::string> capped = CapValidationErrors(errors);
    REQUIRE(capped.size() == 1);
    CHECK(capped[0] == "$." + std::string(300, 'x') + ": " + std::string(192, 'y') + "...");
  }
  SECTION("at most 4000 bytes in all, note included") {
    std::vector<EvaluationError> errors(20, {"$." + std::string(400, 'k'), "unsupported key"});
    const std::vector<std::string> capped = CapValidationErrors(errors);
    size_t total = 0;
    for (const std::string& e : capped) total += e.size();
    CHECK(total <= kRepairMaxTotalBytes);
    CHECK(capped.size() == 10);  // nine errors of 419 bytes and the note
    CHECK(capped.back() == "[11 more validation error(s) omitted]");
  }
}

TEST_CASE("EvaluationContract: evaluation_invalid names the first error and the count",
          "[workflow][evaluation]") {
  const Status s = EvaluationInvalid({{"$.a", "unsupported key"}, {"$.b", "missing required key"}});
  CHECK(s.code() == "evaluation_invalid");
  CHECK(s.message() ==
        "evaluator output does not match pi-background-tasks.fusion-evaluation.v1: $.a: "
        "unsupported key (and 1 more)");
}

TEST_CASE("EvaluationContract: the record of an invalid evaluation quotes no key the model chose",
          "[workflow][evaluation]") {
  const std::vector<EvaluationError> errors = ErrorsAfter([](json& e) {
    e["SECRET_KEY_FROM_THE_MODEL"] = {{"score", 3}};
    e["agreements"].push_back(42);
  });
  REQUIRE(errors.size() >= 3);
  // The repair prompt is told everything, the model's own keys included...
  bool named = false;
  for (const EvaluationError& e : errors) named |= e.ToString().find("SECRET") != std::string::npos;
  CHECK(named);
  // ...the run's records never are.
  for (const EvaluationError& e : errors) CHECK_THAT(e.Record(), !Catch::Contains("SECRET"));
  const Status s = EvaluationInvalid(errors);
  CHECK_THAT(s.message(), !Catch::Contains("SECRET"));
}

}  // namespace pi_fusion::workflow
