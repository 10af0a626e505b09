// Validation's host-assigned finding ids and the stage inputs that carry them.
//
// After anonymization each usable reviewer report belongs to a candidate A, B or C (only A and B
// when one reviewer was dropped). The host numbers every finding `<candidate>-F%03d` in report
// order (A-F001, A-F002, …, B-F001, …); the evaluator must account for each id exactly once
// (validation_accounting.h) and the rendered report cites them.
//
// The blind input of a validate run is fusion-blind-candidates.v1 with
//   candidates[]                 {candidate_id, response}: the report as canonical JSON (a
//                                recovered fence is gone; the bytes are what was validated)
//   validation_source_findings[] {source_id, candidate_id, severity, location, evidence, impact,
//                                summary} in id order
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "workflow/canonical_document.h"
#include "workflow/validation_report.h"

namespace pi_fusion::workflow {

// One usable reviewer report after anonymization.
struct AnonymousReport {
  std::string candidate_id;  // "A" | "B" | "C"
  ValidationReport report;
};

struct SourceFinding {
  std::string source_id;     // "B-F002"
  std::string candidate_id;  // "B"
  ValidationFinding finding;
  bool operator==(const SourceFinding&) const = default;
};

// "A", 1 -> "A-F001".
std::string FindingId(const std::string& candidate_id, size_t ordinal);

// Every finding of `reports` with its id, ordered by candidate id, then report order.
std::vector<SourceFinding> AssignFindingIds(std::vector<AnonymousReport> reports);

// The ids alone, in the same order (what EvaluationScope::source_finding_ids takes).
std::vector<std::string> SourceFindingIds(const std::vector<SourceFinding>& findings);

// The validation_source_findings array.
nlohmann::json SourceFindingsJson(const std::vector<SourceFinding>& findings);

// The evaluator's stdin for a validate run. Errors (orchestration_failed): the candidate ids are
// not exactly A, B (and C).
Result<CanonicalDocument> BuildValidationBlindInput(const CanonicalDocument& canonical_input,
                                                    const std::vector<AnonymousReport>& reports);

// The merger's stdin for a validate run: fusion-merge-input.v1 with the reports as candidates.
// REQUIRES: `evaluation` passed ValidateEvaluation with the matching scope.
Result<CanonicalDocument> BuildValidationMergeInput(const CanonicalDocument& canonical_input,
                                                    const std::vector<AnonymousReport>& reports,
                                                    const nlohmann::json& evaluation);

// The EvaluationScope of a validate run over `reports`.
EvaluationScope ValidationEvaluationScope(const std::vector<AnonymousReport>& reports);

}  // namespace pi_fusion::workflow
