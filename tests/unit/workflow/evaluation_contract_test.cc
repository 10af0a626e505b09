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

namespace pi_fusion::workflow {
namespace {

json Claim(const std::string& verdict, json evidence) {
  return {{"claim", "foo.cc is not listed in CMakeLists.txt"},
          {"verdict", verdict},
          {"evidence", std::move(evidence)}};
}

json GoodV2() {
  json evaluation = GoodEvaluation();
  evaluation["schema_version"] = kEvaluationV2Schema;
  evaluation["checked_claims"] = {Claim("supported", {"CMakeLists.txt:3", "src/foo.cc:10-12"}),
                                  Claim("refuted", {"src/foo.cc:1"}),
                                  Claim("unclear", json::array())};
  return evaluation;
}

EvaluationScope V2Scope() {
  EvaluationScope scope;
  scope.checked_claims = true;
  return scope;
}

std::vector<EvaluationError> V2ErrorsAfter(const std::function<void(json&)>& mutate) {
  json evaluation = GoodV2();
  mutate(evaluation);
  return ValidateEvaluation(evaluation.dump(), V2Scope()).errors;
}

}  // namespace

TEST_CASE("EvaluationContract v2: checked claims are accepted, and match the schema",
          "[workflow][evaluation]") {
  const EvaluationCheck check = ValidateEvaluation(GoodV2().dump(), V2Scope());
  REQUIRE(check.ok());
  CHECK(pi_fusion::testing::CheckAgainstSchema(
            pi_fusion::testing::LoadArtifactSchema("fusion-evaluation.v2.json"), *check.evaluation)
            .empty());
  // An empty list is a valid answer: the evaluator checked nothing.
  CHECK(V2ErrorsAfter([](json& e) { e["checked_claims"] = json::array(); }).empty());
}

TEST_CASE("EvaluationContract v2: v1 and v2 do not mix", "[workflow][evaluation]") {
  // A default run's evaluation stays v1: checked_claims is an unsupported key there.
  json v1_with_claims = GoodEvaluation();
  v1_with_claims["checked_claims"] = json::array();
  const std::vector<EvaluationError> v1 = Errors(v1_with_claims.dump());
  REQUIRE(v1.size() == 1);
  CHECK(v1[0].path == "$.checked_claims");
  CHECK(v1[0].message == "unsupported key");
  CHECK_FALSE(ValidateEvaluation(GoodV2().dump()).ok());
  // With the policy on, v1 is refused: the id and the missing list.
  const std::vector<EvaluationError> v2 =
      ValidateEvaluation(GoodEvaluation().dump(), V2Scope()).errors;
  REQUIRE(v2.size() == 2);
  CHECK(v2[0].path == "$.schema_version");
  CHECK(v2[0].message == "must be \"pi-background-tasks.fusion-evaluation.v2\"");
  CHECK(v2[1].path == "$.checked_claims");
  CHECK(v2[1].message == "missing required key");
}

TEST_CASE("EvaluationContract v2: each claim is closed, its verdict an enum, its caps held",
          "[workflow][evaluation]") {
  struct Case {
    std::function<void(json&)> mutate;
    std::string path;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](json& e) { e["checked_claims"][0]["verdict"] = "true"; }, "$.checked_claims[0].verdict",
       "must be one of supported, refuted, unclear"},
      {[](json& e) { e["checked_claims"][0]["score"] = 1; }, "$.checked_claims[0].score",
       "forbidden key: a blind evaluation has no score, rank or winner"},
      {[](json& e) { e["checked_claims"][0]["note"] = "x"; }, "$.checked_claims[0].note",
       "unsupported key"},
      {[](json& e) { e["checked_claims"][1].erase("evidence"); }, "$.checked_claims[1].evidence",
       "missing required key"},
      {[](json& e) { e["checked_claims"][0]["claim"] = " "; }, "$.checked_claims[0].claim",
       "must not be blank"},
      {[](json& e) {
         e["checked_claims"][0]["claim"] = std::string(kMaxCheckedClaimBytes + 1, 'x');
       },
       "$.checked_claims[0].claim", "longer than 500 bytes"},
      {[](json& e) { e["checked_claims"][0]["evidence"] = {"see CMakeLists.txt:3"}; },
       "$.checked_claims[0].evidence[0]",
       "must be exactly one line citation path:line or path:line-line"},
      {[](json& e) { e["checked_claims"][0]["evidence"] = {"CMakeLists.txt"}; },
       "$.checked_claims[0].evidence[0]",
       "must be exactly one line citation path:line or path:line-line"},
      {[](json& e) { e["checked_claims"][0]["evidence"] = {"a.c:1 b.c:2"}; },
       "$.checked_claims[0].evidence[0]",
       "must be exactly one line citation path:line or path:line-line"},
      {[](json& e) { e["checked_claims"][1]["evidence"] = json::array(); },
       "$.checked_claims[1].evidence", "a supported or refuted claim needs at least one citation"},
      {[](json& e) {
         e["checked_claims"][0]["evidence"] = json::array();
         for (size_t i = 0; i <= kMaxClaimEvidence; ++i) {
           e["checked_claims"][0]["evidence"].push_back("a.c:" + std::to_string(i + 1));
         }
       },
       "$.checked_claims[0].evidence", "more than 8 citations"},
      {[](json& e) {
         for (size_t i = 0; i < kMaxCheckedClaims; ++i) {
           e["checked_claims"].push_back(Claim("unclear", json::array()));
         }
       },
       "$.checked_claims", "more than 24 checked claims"},
      {[](json& e) { e["checked_claims"] = json::object(); }, "$.checked_claims",
       "expected an array"},
  };
  for (const Case& c : cases) {
    INFO(c.path);
    const std::vector<EvaluationError> errors = V2ErrorsAfter(c.mutate);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].path == c.path);
    CHECK(errors[0].message == c.message);
  }
}

TEST_CASE("EvaluationContract v2: the evaluator's prompt asks for v2, its tools and its budget",
          "[workflow][evaluation]") {
  const std::string inspect =
      CheckedClaimsEvaluatorPrompt(EvaluatorSystemPrompt(), Capability::kInspect);
  CHECK(inspect.find(std::string(kEvaluationSchema)) == std::string::npos);
  CHECK_THAT(inspect, Catch::Contains(std::string(kEvaluationV2Schema)));
  CHECK_THAT(inspect, Catch::Contains("Your budget is 12 tool calls in all"));
  CHECK_THAT(inspect, Catch::Contains("checked_claims"));
  CHECK_THAT(inspect, !Catch::Contains("fusion_web_fetch"));
  CHECK_THAT(CheckedClaimsEvaluatorPrompt(EvaluatorSystemPrompt(), Capability::kResearch),
             Catch::Contains("fusion_web_fetch"));
  const std::string repair = CheckedClaimsRepairPrompt(EvaluationRepairSystemPrompt());
  CHECK(repair.find(std::string(kEvaluationSchema)) == std::string::npos);
  CHECK_THAT(repair, Catch::Contains("You have no tools in this repair"));
  CHECK_THAT(repair, !Catch::Contains("Your budget is"));
  // The template, turned to v2 and given a list, is itself valid v2.
  json v2_template = json::parse(EvaluationTemplate());
  v2_template["schema_version"] = kEvaluationV2Schema;
  v2_template["checked_claims"] = json::array();
  CHECK(ValidateEvaluation(v2_template.dump(), V2Scope()).ok());
}

}  // namespace pi_fusion::workflow
