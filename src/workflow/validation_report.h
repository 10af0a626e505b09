// A validation reviewer's report `pi-background-tasks.fusion-validation-candidate.v1`
// (schemas/artifacts/fusion-validation-candidate.v1.json; docs/workflow.md, "Validation").
//
// A reviewer's whole stdout must be exactly one bare, closed JSON object, read by the same strict
// parser as the evaluation (strict_json.h):
//   schema_version  "pi-background-tasks.fusion-validation-candidate.v1"
//   findings[]      {severity: critical|high|minor, location, evidence, impact, summary}
//   verified[]      what the reviewer checked and found sound
//   limitations[]   what the review could not cover
// Every string is non-blank; arrays may be empty.
//
// One violation, and only this one, is recovered: the whole output (surrounding JSON whitespace
// aside) is a single complete ```json fence around a valid report. The recovery is audited: the
// caller writes ContractEvent() as candidate-<slot>.attempt-<n>.contract-event.json and the
// rendered report names it among its limitations. Nothing else is stripped or repaired.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "workflow/evaluation_contract.h"

namespace pi_fusion::workflow {

inline constexpr std::string_view kSeverityCritical = "critical";
inline constexpr std::string_view kSeverityHigh = "high";
inline constexpr std::string_view kSeverityMinor = "minor";

struct ValidationFinding {
  std::string severity;  // critical | high | minor
  std::string location;
  std::string evidence;
  std::string impact;
  std::string summary;
  bool operator==(const ValidationFinding&) const = default;
};

struct ValidationReport {
  std::vector<ValidationFinding> findings;  // in the reviewer's order
  std::vector<std::string> verified;
  std::vector<std::string> limitations;
  bool operator==(const ValidationReport&) const = default;
};

// The closed report object (schema_version included), as a reviewer should have written it.
nlohmann::json ValidationReportToJson(const ValidationReport& report);

struct ReportReading {
  std::optional<ValidationReport> report;  // set iff the output is usable
  // Set when the report was recovered from its ```json fence: the exact bytes inside it.
  std::optional<std::string> fence_body;
  std::vector<EvaluationError> errors;  // why it is unusable; "$" paths as in the evaluation

  bool ok() const { return report.has_value(); }
};

// Reads a reviewer's complete stdout: strictly, then, only if that fails, through the one
// fence recovery.
ReportReading ReadValidationReport(std::string_view output);

// "candidate-<slot>.attempt-<attempt>.contract-event.json"
std::string ContractEventArtifact(int slot, int attempt);

// The audit record of one fence recovery, fusion-validation-candidate-contract-event.v1:
// {schema_version, stage: "candidate", slot, attempt, event: "json_fence_removed",
//  raw_bytes, raw_sha256, recovered_bytes, recovered_sha256} with "sha256:<hex>" digests of the
// reviewer's complete stdout and of the fence body the report was read from.
nlohmann::json ContractEvent(int slot, int attempt, std::string_view raw,
                             std::string_view recovered);

}  // namespace pi_fusion::workflow
