#include "workflow/stage_inputs.h"

#include <algorithm>

#include "core/utf8.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

}  // namespace

Result<json> CandidateArray(std::vector<AnonymousCandidate> candidates, size_t count) {
  std::sort(candidates.begin(), candidates.end(),
            [](const auto& a, const auto& b) { return a.candidate_id < b.candidate_id; });
  bool exact = (count == 2 || count == kCandidateCount) && candidates.size() == count;
  for (size_t i = 0; exact && i < candidates.size(); ++i) {
    exact = candidates[i].candidate_id == kCandidateIds[i];
  }
  if (!exact) {
    return Status::Error(std::string(kOrchestrationFailed),
                         count == kCandidateCount
                             ? "stage input needs exactly one candidate each for A, B and C"
                             : "stage input needs exactly one candidate each for A and B");
  }
  json out = json::array();
  for (AnonymousCandidate& c : candidates) {
    out.push_back(
        {{"candidate_id", std::move(c.candidate_id)}, {"response", std::move(c.response)}});
  }
  return out;
}

std::string CandidateStdin(const CanonicalDocument& canonical_input) {
  return std::string(kCandidateInstruction) + "\n\n" + canonical_input.bytes;
}

Result<CanonicalDocument> BuildBlindInput(const CanonicalDocument& canonical_input,
                                          std::vector<AnonymousCandidate> candidates,
                                          size_t count) {
  Result<json> list = CandidateArray(std::move(candidates), count);
  if (!list.ok()) return list.status();
  json input = {{"schema_version", kBlindCandidatesSchema},
                {"canonical_input", canonical_input.value},
                {"candidates", std::move(list).value()}};
  return MakeCanonicalDocument(std::move(input), kOrchestrationFailed, "the blind input");
}

Result<CanonicalDocument> BuildRepairInput(const CanonicalDocument& blind_input,
                                           const std::string& invalid_output,
                                           const std::vector<EvaluationError>& errors) {
  json input = {{"schema_version", kEvaluationRepairInputSchema},
                {"original_blind_input", blind_input.value},
                {"invalid_output", RepairUtf8(invalid_output)},
                {"validation_errors", CapValidationErrors(errors)}};
  return MakeCanonicalDocument(std::move(input), kOrchestrationFailed, "the repair input");
}

Result<CanonicalDocument> BuildMergeInput(const CanonicalDocument& canonical_input,
                                          std::vector<AnonymousCandidate> candidates,
                                          const json& evaluation, size_t count,
                                          const json* order_notes) {
  Result<json> list = CandidateArray(std::move(candidates), count);
  if (!list.ok()) return list.status();
  json input = {{"schema_version", kMergeInputSchema},
                {"canonical_input", canonical_input.value},
                {"candidates", std::move(list).value()},
                {"evaluation", evaluation}};
  if (order_notes != nullptr) input["order_check"] = *order_notes;
  return MakeCanonicalDocument(std::move(input), kOrchestrationFailed, "the merge input");
}

}  // namespace pi_fusion::workflow
