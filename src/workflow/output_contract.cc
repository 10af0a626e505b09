#include "workflow/output_contract.h"

#include "core/error_codes.h"
#include "pi_fusion/canonical_json.h"
#include "schema/schema_walker.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

size_t OutputLimit(OutputKind kind) {
  switch (kind) {
    case OutputKind::kCandidate:
      return kCandidateOutputMaxBytes;
    case OutputKind::kEvaluator:
      return kEvaluatorOutputMaxBytes;
    case OutputKind::kMerger:
      return kMergerOutputMaxBytes;
    case OutputKind::kDiagnostics:
      return kDiagnosticsMaxBytes;
  }
  return 0;
}

std::string_view OutputKindName(OutputKind kind) {
  switch (kind) {
    case OutputKind::kCandidate:
      return "candidate";
    case OutputKind::kEvaluator:
      return "evaluator";
    case OutputKind::kMerger:
      return "merger";
    case OutputKind::kDiagnostics:
      return "diagnostics";
  }
  return "unknown";
}

Status CheckOutputContract(OutputKind kind, const std::string& text) {
  // An empty or white-space-only answer is not an answer: it must never become a committed,
  // "verified" empty merged.md.
  if (schema::TrimUnicodeSpace(text).empty()) {
    return Status::Error(kChildEventInvalid,
                         std::string(OutputKindName(kind)) + " answer is empty");
  }
  const size_t measured = JsonRenderedBytes(text);
  const size_t limit = OutputLimit(kind);
  if (measured <= limit) return Status::Ok();
  return Status::Error(std::string(kChildOutputCap),
                       std::string(OutputKindName(kind)) + " output is " + GroupDigits(measured) +
                           " JSON-rendered UTF-8 bytes; the limit is " + GroupDigits(limit));
}

std::string GroupDigits(size_t value) {
  std::string digits = std::to_string(value);
  for (size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
  return digits;
}

}  // namespace pi_fusion::workflow
