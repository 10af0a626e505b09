// Validation reviewer reports (src/workflow/validation_report.h) and the host-assigned finding
// ids they get after anonymization (src/workflow/validation_findings.h).
#include "workflow/validation_report.h"

#include <catch2/catch.hpp>

#include "json_schema_check.h"
#include "pi_fusion/sha256.h"
#include "workflow/clean_task.h"
#include "workflow/validation_findings.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;
using pi_fusion::testing::CheckAgainstSchema;
using pi_fusion::testing::LoadArtifactSchema;

json Finding(const std::string& severity, const std::string& location) {
  return {{"severity", severity},
          {"location", location},
          {"evidence", "line 12 reads the length before the null check"},
          {"impact", "a null config crashes the loader"},
          {"summary", "null dereference in LoadConfig"}};
}

json GoodReport() {
  return {{"schema_version", kValidationCandidateSchema},
          {"findings", {Finding("high", "src/config.cc:12"), Finding("minor", "README.md:3")}},
          {"verified", {"the parser rejects duplicate keys"}},
          {"limitations", {"did not read the tests"}}};
}

std::vector<EvaluationError> ErrorsAfter(const std::function<void(json&)>& mutate) {
  json report = GoodReport();
  mutate(report);
  return ReadValidationReport(report.dump()).errors;
}

}  // namespace

TEST_CASE("ValidationReport: a bare report is read strictly and matches its schema",
          "[workflow][validation]") {
  const ReportReading reading = ReadValidationReport("\n " + GoodReport().dump(2) + "\n");
  REQUIRE(reading.ok());
  CHECK_FALSE(reading.fence_body.has_value());
  CHECK(reading.report->findings.size() == 2);
  CHECK(reading.report->findings[0].location == "src/config.cc:12");
  CHECK(ValidationReportToJson(*reading.report) == GoodReport());
  CHECK(CheckAgainstSchema(LoadArtifactSchema("fusion-validation-candidate.v1.json"), GoodReport())
            .empty());
  json empty = GoodReport();
  empty["findings"] = json::array();
  empty["verified"] = json::array();
  empty["limitations"] = json::array();
  CHECK(ReadValidationReport(empty.dump()).ok());
}

TEST_CASE("ValidationReport: each shape violation is named by its JSON path",
          "[workflow][validation]") {
  using E = EvaluationError;
  struct Case {
    const char* name;
    std::function<void(json&)> mutate;
    std::vector<EvaluationError> expected;
  };
  const std::vector<Case> cases = {
      {"unknown severity",
       [](json& r) { r["findings"][0]["severity"] = "medium"; },
       {E{"$.findings[0].severity", "must be one of critical, high, minor"}}},
      {"extra key in a finding",
       [](json& r) { r["findings"][1]["id"] = "F1"; },
       {E{"$.findings[1].id", "unsupported key"}}},
      {"missing evidence",
       [](json& r) { r["findings"][0].erase("evidence"); },
       {E{"$.findings[0].evidence", "missing required key"}}},
      {"blank summary",
       [](json& r) { r["findings"][0]["summary"] = "  "; },
       {E{"$.findings[0].summary", "must not be blank"}}},
      {"extra top-level key",
       [](json& r) { r["verdict"] = "pass"; },
       {E{"$.verdict", "unsupported key"}}},
      {"missing limitations",
       [](json& r) { r.erase("limitations"); },
       {E{"$.limitations", "missing required key"}}},
      {"wrong schema version",
       [](json& r) { r["schema_version"] = "pi-background-tasks.fusion-evaluation.v1"; },
       {E{"$.schema_version", "must be \"pi-background-tasks.fusion-validation-candidate.v1\""}}},
      {"number in verified",
       [](json& r) { r["verified"] = {7}; },
       {E{"$.verified[0]", "expected a string"}}},
      {"findings not a list",
       [](json& r) { r["findings"] = json::object(); },
       {E{"$.findings", "expected an array"}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(ErrorsAfter(c.mutate) == c.expected);
  }
}

TEST_CASE("ValidationReport: exactly one complete ```json fence is recovered, nothing else",
          "[workflow][validation]") {
  const std::string body = GoodReport().dump(2);
  struct Case {
    const char* name;
    std::string output;
    bool recovered;
    const char* error_part;  // the only error's message when not recovered
  };
  const std::vector<Case> cases = {
      {"fence", "```json\n" + body + "\n```", true, ""},
      {"fence with surrounding whitespace", "\n\n  ```json\n" + body + "\n```\n ", true, ""},
      {"fence with CRLF and spaces after the tag", "```json  \r\n" + body + "\r\n```", true, ""},
      {"text before the fence", "Here is the report:\n```json\n" + body + "\n```", false,
       "not a single JSON value"},
      {"text after the fence", "```json\n" + body + "\n```\nDone.", false,
       "Markdown code fences are not allowed"},
      {"two fences", "```json\n" + body + "\n```\n```json\n" + body + "\n```", false,
       "inside the ```json fence: not a single JSON value"},
      {"fence without a language", "```\n" + body + "\n```", false,
       "Markdown code fences are not allowed"},
      {"a different language", "```jsonc\n" + body + "\n```", false,
       "Markdown code fences are not allowed"},
      {"unterminated fence", "```json\n" + body, false, "Markdown code fences are not allowed"},
      {"fence on one line", "```json " + GoodReport().dump() + " ```", false,
       "Markdown code fences are not allowed"},
      {"empty fence", "```json\n```", false, "Markdown code fences are not allowed"},
      {"fenced prose", "```json\nno findings\n```", false,
       "inside the ```json fence: not a single JSON value"},
      {"nested fence", "```json\n```json\n" + body + "\n```\n```", false,
       "inside the ```json fence: the output must be one bare JSON object"},
      {"empty output", " \n", false, "the report is empty"},
      {"prose", "All good, no findings.", false, "not a single JSON value"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const ReportReading reading = ReadValidationReport(c.output);
    CHECK(reading.ok() == c.recovered);
    CHECK(reading.fence_body.has_value() == c.recovered);
    if (c.recovered) {
      CHECK(ValidationReportToJson(*reading.report) == GoodReport());
      CHECK(reading.fence_body->find(body) != std::string::npos);
    } else {
      REQUIRE(reading.errors.size() == 1);
      CHECK(reading.errors[0].path == "$");
      CHECK_THAT(reading.errors[0].message, Catch::Contains(c.error_part));
    }
  }
}

TEST_CASE("ValidationReport: a fenced report must itself be valid", "[workflow][validation]") {
  json bad = GoodReport();
  bad["findings"][0]["severity"] = "urgent";
  const ReportReading reading = ReadValidationReport("```json\n" + bad.dump() + "\n```");
  CHECK_FALSE(reading.ok());
  CHECK_FALSE(reading.fence_body.has_value());
  CHECK(reading.errors == std::vector<EvaluationError>{
                              {"$.findings[0].severity", "must be one of critical, high, minor"}});
}

TEST_CASE("ValidationReport: the contract event binds the raw and recovered bytes",
          "[workflow][validation]") {
  const std::string raw = "```json\n" + GoodReport().dump() + "\n```\n";
  const ReportReading reading = ReadValidationReport(raw);
  REQUIRE(reading.fence_body.has_value());
  const json event = ContractEvent(2, 1, raw, *reading.fence_body);
  CHECK(ContractEventArtifact(2, 1) == "candidate-2.attempt-1.contract-event.json");
  CHECK(event["schema_version"] == kValidationContractEventSchema);
  CHECK(event["slot"] == 2);
  CHECK(event["raw_bytes"] == raw.size());
  CHECK(event["raw_sha256"] == Sha256Ref(raw));
  CHECK(event["recovered_bytes"] == reading.fence_body->size());
  CHECK(event["recovered_sha256"] == Sha256Ref(GoodReport().dump() + "\n"));
  const json schema = LoadArtifactSchema("fusion-validation-candidate-contract-event.v1.json");
  CHECK(CheckAgainstSchema(schema, event).empty());
  json tampered = event;
  tampered["raw_sha256"] = "deadbeef";
  CHECK_FALSE(CheckAgainstSchema(schema, tampered).empty());
}

TEST_CASE("ValidationFindings: ids follow anonymization and report order",
          "[workflow][validation]") {
  ValidationReport two = *ReadValidationReport(GoodReport().dump()).report;
  ValidationReport none = two;
  none.findings.clear();
  ValidationReport one = two;
  one.findings.resize(1);
  // Given out of order: ids follow the candidate ids, not the slot or the argument order.
  const std::vector<SourceFinding> ids = AssignFindingIds({{"C", one}, {"A", two}, {"B", none}});
  CHECK(SourceFindingIds(ids) == std::vector<std::string>{"A-F001", "A-F002", "C-F001"});
  CHECK(ids[1].finding.location == "README.md:3");
  CHECK(ids[2].candidate_id == "C");
  CHECK(FindingId("B", 7) == "B-F007");
  CHECK(FindingId("A", 1234) == "A-F1234");
}

TEST_CASE("ValidationFindings: the blind input carries the reports and their source findings",
          "[workflow][validation]") {
  const json request = {{"objective", "o"}};
  Result<CanonicalDocument> input = BuildCleanTaskInput(
      "/repo", {"fusion_validate", Workflow::kValidate, request, request.dump()});
  REQUIRE(input.ok());
  const ValidationReport report = *ReadValidationReport(GoodReport().dump()).report;
  const json blind_schema = LoadArtifactSchema("fusion-blind-candidates.v1.json");
  const json merge_schema = LoadArtifactSchema("fusion-merge-input.v1.json");
  for (const std::vector<AnonymousReport>& reports :
       {std::vector<AnonymousReport>{{"B", report}, {"A", report}, {"C", report}},
        std::vector<AnonymousReport>{{"B", report}, {"A", report}}}) {
    INFO(reports.size() << " reports");
    Result<CanonicalDocument> blind = BuildValidationBlindInput(*input, reports);
    REQUIRE(blind.ok());
    CHECK(CheckAgainstSchema(blind_schema, blind->value).empty());
    CHECK(blind->value["candidates"][0]["candidate_id"] == "A");
    CHECK(json::parse(blind->value["candidates"][1]["response"].get<std::string>()) ==
          GoodReport());
    const json& sources = blind->value["validation_source_findings"];
    REQUIRE(sources.size() == 2 * reports.size());
    CHECK(sources[2] == json{{"source_id", "B-F001"},
                             {"candidate_id", "B"},
                             {"severity", "high"},
                             {"location", "src/config.cc:12"},
                             {"evidence", "line 12 reads the length before the null check"},
                             {"impact", "a null config crashes the loader"},
                             {"summary", "null dereference in LoadConfig"}});
    const EvaluationScope scope = ValidationEvaluationScope(reports);
    CHECK(scope.candidate_ids.size() == reports.size());
    CHECK(scope.source_finding_ids->size() == sources.size());
    Result<CanonicalDocument> merge =
        BuildValidationMergeInput(*input, reports, json{{"any", "evaluation"}});
    REQUIRE(merge.ok());
    CHECK(CheckAgainstSchema(merge_schema, merge->value).empty());
  }
  // Two reports must be A and B: a gap or a single report is a host bug, refused.
  CHECK(BuildValidationBlindInput(*input, {{"A", report}, {"C", report}}).status().code() ==
        kOrchestrationFailed);
  CHECK(BuildValidationBlindInput(*input, {{"A", report}}).status().code() == kOrchestrationFailed);
}

}  // namespace pi_fusion::workflow
