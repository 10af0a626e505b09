#include <catch2/catch.hpp>

#include <string>

#include "json_schema_check.h"
#include "workflow/agreement_check.h"
#include "workflow/canonical_document.h"
#include "workflow/stage_inputs.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

std::string Verdict(const std::string& agree, const std::string& differences,
                    const std::string& more = "") {
  return R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":)" + agree +
         R"(,"differences":)" + differences + more + "}";
}

std::string FirstPath(const AgreementCheck& check) {
  return check.errors.empty() ? "" : check.errors.front().path;
}

}  // namespace

TEST_CASE("AgreementCheck: a valid verdict, agreeing or not") {
  const AgreementCheck agree = ValidateAgreement(" \n" + Verdict("true", "[]") + "\n");
  REQUIRE(agree.ok());
  CHECK(agree.verdict->agree);
  CHECK(agree.verdict->differences.empty());
  const AgreementCheck differ =
      ValidateAgreement(Verdict("false", R"(["A says 42, B says 41","B omits the caveat"])"));
  REQUIRE(differ.ok());
  CHECK_FALSE(differ.verdict->agree);
  CHECK(differ.verdict->differences ==
        std::vector<std::string>{"A says 42, B says 41", "B omits the caveat"});
}

TEST_CASE("AgreementCheck: the object is closed, strict, and differences match agree") {
  struct Row {
    std::string output;
    std::string path;
    std::string message;
  };
  const Row rows[] = {
      {Verdict("true", "[]", R"(,"winner":"A")"), "$.winner", "unsupported key"},
      {Verdict("true", R"(["a difference"])"), "$.differences", "must be empty when agree is true"},
      {Verdict("false", "[]"), "$.differences",
       "must name at least one difference when agree is false"},
      {Verdict("\"yes\"", "[]"), "$.agree", "expected a boolean"},
      {Verdict("false", R"(["  "])"), "$.differences[0]", ""},
      {Verdict("false", "[1]"), "$.differences[0]", ""},
      {R"({"schema_version":"pi-background-tasks.fusion-agreement.v2","agree":true,"differences":[]})",
       "$.schema_version", ""},
      {R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":true})",
       "$.differences", "missing required key"},
      {"```json\n" + Verdict("true", "[]") + "\n```", "$", ""},
      {Verdict("true", "[]") + " trailing", "$", ""},
      {R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":true,"agree":true,"differences":[]})",
       "$", ""},
      {"", "$", ""},
  };
  for (const Row& row : rows) {
    INFO(row.output);
    const AgreementCheck check = ValidateAgreement(row.output);
    REQUIRE_FALSE(check.ok());
    CHECK_FALSE(check.verdict);
    CHECK(FirstPath(check) == row.path);
    if (!row.message.empty())
      CHECK_THAT(check.errors.front().message, Catch::Contains(row.message));
  }
  const Status invalid = AgreementInvalid(ValidateAgreement(Verdict("false", "[]")).errors);
  CHECK(invalid.code() == "evaluation_invalid");
  CHECK_THAT(invalid.message(),
             Catch::StartsWith("agreement check output does not match "
                               "pi-background-tasks.fusion-agreement.v1: $.differences: "));
}

TEST_CASE("AgreementCheck: identical answers need no check") {
  CHECK(AnswersIdentical("same", "same"));
  CHECK(AnswersIdentical("a  \r\nb\t\n\n", "\na\nb"));
  CHECK_FALSE(AnswersIdentical("a b", "a  b"));
  CHECK_FALSE(AnswersIdentical("The answer is 42.", "The answer is 41."));
  CHECK(AnswersIdentical("", "\n \n"));
}

TEST_CASE("AgreementCheck: the input names A and B only, in order, and the prompt its schemas") {
  const Result<CanonicalDocument> canonical =
      MakeCanonicalDocument(json{{"request", {{"prompt", "q"}}}}, "orchestration_failed", "input");
  REQUIRE(canonical.ok());
  const Result<CanonicalDocument> input = BuildAgreementInput(*canonical, "one", "two");
  REQUIRE(input.ok());
  CHECK(input->value["schema_version"] == "pi-background-tasks.fusion-agreement-input.v1");
  CHECK(input->value["canonical_input"] == canonical->value);
  CHECK(input->value["candidates"] ==
        json::parse(
            R"([{"candidate_id":"A","response":"one"},{"candidate_id":"B","response":"two"}])"));
  // Its id and the verdict's are pinned by their schemas in schemas/artifacts/.
  const json input_schema =
      pi_fusion::testing::LoadArtifactSchema("fusion-agreement-input.v1.json");
  CHECK(input_schema["$id"] == kAgreementInputSchema);
  CHECK(pi_fusion::testing::CheckAgainstSchema(input_schema, input->value).empty());
  const json verdict_schema = pi_fusion::testing::LoadArtifactSchema("fusion-agreement.v1.json");
  CHECK(verdict_schema["$id"] == kAgreementSchema);
  for (
      const char* verdict :
      {R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":true,"differences":[]})",
       R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":false,"differences":["x"]})"}) {
    CHECK(ValidateAgreement(verdict).ok());
    CHECK(pi_fusion::testing::CheckAgainstSchema(verdict_schema, json::parse(verdict)).empty());
  }
  for (
      const char* verdict :
      {R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":true,"differences":["x"]})",
       R"({"schema_version":"pi-background-tasks.fusion-agreement.v1","agree":false,"differences":[]})"}) {
    CHECK_FALSE(ValidateAgreement(verdict).ok());
    CHECK_FALSE(
        pi_fusion::testing::CheckAgainstSchema(verdict_schema, json::parse(verdict)).empty());
  }
  CHECK_THAT(AgreementSystemPrompt(),
             Catch::Contains("pi-background-tasks.fusion-agreement-input.v1") &&
                 Catch::Contains("pi-background-tasks.fusion-agreement.v1"));
  CHECK_THAT(AgreementSystemPrompt(), !Catch::Contains("fusion-blind-candidates"));
  CHECK_THAT(AgreementRepairSystemPrompt(),
             Catch::Contains("pi-background-tasks.fusion-evaluation-repair-input.v1"));
}

TEST_CASE("AgreementCheck: its repair input is the evaluator's, and conforms to that schema") {
  const Result<CanonicalDocument> canonical =
      MakeCanonicalDocument(json{{"request", {{"prompt", "q"}}}}, "orchestration_failed", "input");
  REQUIRE(canonical.ok());
  const Result<CanonicalDocument> input = BuildAgreementInput(*canonical, "one", "two");
  REQUIRE(input.ok());
  // What agreement_stage.cc builds for an unusable verdict.
  const Result<CanonicalDocument> repair =
      BuildRepairInput(*input, "not json", {{"$", "not JSON", ""}});
  REQUIRE(repair.ok());
  const json schema =
      pi_fusion::testing::LoadArtifactSchema("fusion-evaluation-repair-input.v1.json");
  CHECK(schema["$id"] == kEvaluationRepairInputSchema);
  CHECK(repair->value["schema_version"] == kEvaluationRepairInputSchema);
  CHECK(repair->value["original_blind_input"] == input->value);
  CHECK(pi_fusion::testing::CheckAgainstSchema(schema, repair->value).empty());
}

}  // namespace pi_fusion::workflow
