#include "workflow/validation_findings.h"

#include <algorithm>
#include <cstdio>

#include "pi_fusion/canonical_json.h"
#include "workflow/stage_inputs.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

std::vector<AnonymousReport> SortedById(std::vector<AnonymousReport> reports) {
  std::sort(reports.begin(), reports.end(),
            [](const auto& a, const auto& b) { return a.candidate_id < b.candidate_id; });
  return reports;
}

// The reports as stage-input candidates; the response is the report's canonical JSON.
std::vector<AnonymousCandidate> AsCandidates(const std::vector<AnonymousReport>& reports) {
  std::vector<AnonymousCandidate> out;
  for (const AnonymousReport& r : reports) {
    out.push_back({r.candidate_id, CanonicalJson(ValidationReportToJson(r.report))});
  }
  return out;
}

}  // namespace

std::string FindingId(const std::string& candidate_id, size_t ordinal) {
  char number[24];
  std::snprintf(number, sizeof number, "%03zu", ordinal);
  return candidate_id + "-F" + number;
}

std::vector<SourceFinding> AssignFindingIds(std::vector<AnonymousReport> reports) {
  std::vector<SourceFinding> out;
  for (AnonymousReport& r : SortedById(std::move(reports))) {
    for (size_t i = 0; i < r.report.findings.size(); ++i) {
      out.push_back(
          {FindingId(r.candidate_id, i + 1), r.candidate_id, std::move(r.report.findings[i])});
    }
  }
  return out;
}

std::vector<std::string> SourceFindingIds(const std::vector<SourceFinding>& findings) {
  std::vector<std::string> ids;
  for (const SourceFinding& f : findings) ids.push_back(f.source_id);
  return ids;
}

json SourceFindingsJson(const std::vector<SourceFinding>& findings) {
  json out = json::array();
  for (const SourceFinding& f : findings) {
    out.push_back({{"source_id", f.source_id},
                   {"candidate_id", f.candidate_id},
                   {"severity", f.finding.severity},
                   {"location", f.finding.location},
                   {"evidence", f.finding.evidence},
                   {"impact", f.finding.impact},
                   {"summary", f.finding.summary}});
  }
  return out;
}

Result<CanonicalDocument> BuildValidationBlindInput(const CanonicalDocument& canonical_input,
                                                    const std::vector<AnonymousReport>& reports) {
  Result<json> list = CandidateArray(AsCandidates(reports), reports.size());
  if (!list.ok()) return list.status();
  json input = {{"schema_version", kBlindCandidatesSchema},
                {"canonical_input", canonical_input.value},
                {"candidates", std::move(list).value()},
                {"validation_source_findings", SourceFindingsJson(AssignFindingIds(reports))}};
  return MakeCanonicalDocument(std::move(input), kOrchestrationFailed, "the blind input");
}

Result<CanonicalDocument> BuildValidationMergeInput(const CanonicalDocument& canonical_input,
                                                    const std::vector<AnonymousReport>& reports,
                                                    const json& evaluation) {
  return BuildMergeInput(canonical_input, AsCandidates(reports), evaluation, reports.size());
}

EvaluationScope ValidationEvaluationScope(const std::vector<AnonymousReport>& reports) {
  EvaluationScope scope;
  scope.candidate_ids.clear();
  for (const AnonymousReport& r : SortedById(reports))
    scope.candidate_ids.push_back(r.candidate_id);
  scope.source_finding_ids = SourceFindingIds(AssignFindingIds(reports));
  return scope;
}

}  // namespace pi_fusion::workflow
