#include "workflow/validation_report.h"

#include "pi_fusion/sha256.h"
#include "workflow/contract_checker.h"
#include "workflow/strict_json.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

constexpr std::string_view kFenceOpen = "```json";
constexpr std::string_view kFenceClose = "```";

// The bytes inside `text` when it is exactly one ```json fence: the opening line is ```json
// (trailing spaces or tabs allowed), the closing line is ```, and nothing precedes or follows.
std::optional<std::string_view> FenceBody(std::string_view text) {
  text = TrimJsonSpace(text);
  if (!text.starts_with(kFenceOpen) || !text.ends_with(kFenceClose)) return std::nullopt;
  std::string_view rest = text.substr(kFenceOpen.size());
  while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
  if (rest.starts_with("\r\n")) {
    rest.remove_prefix(2);
  } else if (rest.starts_with("\n")) {
    rest.remove_prefix(1);
  } else {
    return std::nullopt;
  }
  if (rest.size() < kFenceClose.size()) return std::nullopt;
  rest.remove_suffix(kFenceClose.size());
  if (!rest.ends_with("\n")) return std::nullopt;
  return rest;
}

ValidationFinding FindingOf(const json& v) {
  return {v.at("severity").get<std::string>(), v.at("location").get<std::string>(),
          v.at("evidence").get<std::string>(), v.at("impact").get<std::string>(),
          v.at("summary").get<std::string>()};
}

// Checks the parsed value; the report when it is one.
std::optional<ValidationReport> CheckReport(const json& root, std::vector<EvaluationError>* out) {
  ContractChecker c;
  if (c.Object(root, "$", {"schema_version", "findings", "verified", "limitations"})) {
    c.SchemaVersion(root, kValidationCandidateSchema);
    c.ArrayField(root, "$", "findings", [&](const json& v, const std::string& p) {
      if (!c.Object(v, p, {"severity", "location", "evidence", "impact", "summary"})) return;
      c.EnumField(v, p, "severity", {kSeverityCritical, kSeverityHigh, kSeverityMinor});
      for (const char* key : {"location", "evidence", "impact", "summary"}) {
        c.NonBlankField(v, p, key);
      }
    });
    c.StringArrayField(root, "$", "verified");
    c.StringArrayField(root, "$", "limitations");
  }
  *out = std::move(c.errors);
  if (!out->empty()) return std::nullopt;
  ValidationReport report;
  for (const json& f : root.at("findings")) report.findings.push_back(FindingOf(f));
  report.verified = root.at("verified").get<std::vector<std::string>>();
  report.limitations = root.at("limitations").get<std::vector<std::string>>();
  return report;
}

}  // namespace

json ValidationReportToJson(const ValidationReport& report) {
  json findings = json::array();
  for (const ValidationFinding& f : report.findings) {
    findings.push_back({{"severity", f.severity},
                        {"location", f.location},
                        {"evidence", f.evidence},
                        {"impact", f.impact},
                        {"summary", f.summary}});
  }
  return {{"schema_version", kValidationCandidateSchema},
          {"findings", std::move(findings)},
          {"verified", report.verified},
          {"limitations", report.limitations}};
}

ReportReading ReadValidationReport(std::string_view output) {
  ReportReading reading;
  StrictJson parsed = ParseStrictJson(output, "report");
  if (parsed.ok()) {
    reading.report = CheckReport(parsed.value, &reading.errors);
    return reading;
  }
  const std::optional<std::string_view> body = FenceBody(output);
  if (!body) {
    reading.errors.push_back({"$", parsed.error});
    return reading;
  }
  StrictJson inner = ParseStrictJson(*body, "fenced report");
  if (!inner.ok()) {
    reading.errors.push_back({"$", "inside the ```json fence: " + inner.error});
    return reading;
  }
  reading.report = CheckReport(inner.value, &reading.errors);
  if (reading.report) reading.fence_body = std::string(*body);
  return reading;
}

std::string ContractEventArtifact(int slot, int attempt) {
  return "candidate-" + std::to_string(slot) + ".attempt-" + std::to_string(attempt) +
         ".contract-event.json";
}

json ContractEvent(int slot, int attempt, std::string_view raw, std::string_view recovered) {
  return {{"schema_version", kValidationContractEventSchema},
          {"stage", "candidate"},
          {"slot", slot},
          {"attempt", attempt},
          {"event", "json_fence_removed"},
          {"raw_bytes", raw.size()},
          {"raw_sha256", Sha256Ref(raw)},
          {"recovered_bytes", recovered.size()},
          {"recovered_sha256", Sha256Ref(recovered)}};
}

}  // namespace pi_fusion::workflow
