// The stdin payloads of the child stages (spec/CONTRACTS.md, "Stages").
//
// Pi reads piped stdin fully, trims it and sends it as the first user message (spec/PI_HOST.md
// §1), so every payload here starts and ends with a non-space byte: what the budget measures is
// byte for byte what the model receives.
//   candidate           CandidateStdin(): one instruction line, a blank line, the canonical input
//   evaluator           BuildBlindInput().bytes    fusion-blind-candidates.v1
//   evaluator repair    BuildRepairInput().bytes   fusion-evaluation-repair-input.v1
//   merger              BuildMergeInput().bytes    fusion-merge-input.v1
// Stage inputs are closed canonical JSON objects (schemas/artifacts/); candidates always appear
// ordered A, B, C whatever order they are given in.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "workflow/canonical_document.h"
#include "workflow/evaluation_contract.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

// One candidate's answer after anonymization.
struct AnonymousCandidate {
  std::string candidate_id;  // "A" | "B" | "C"
  std::string response;      // the candidate's complete stdout
};

// The candidates as a stage input's JSON array, ordered A, B, C: exactly one each of the first
// `count` ids (3; 2 for a validate run that dropped one reviewer or a degraded quorum-2 run),
// else orchestration_failed.
Result<nlohmann::json> CandidateArray(std::vector<AnonymousCandidate> candidates, size_t count);

// The instruction line every candidate gets before its canonical input.
inline constexpr char kCandidateInstruction[] =
    "Answer the request in the following JSON input as your system prompt describes.";

// kCandidateInstruction + "\n\n" + canonical_input.bytes.
std::string CandidateStdin(const CanonicalDocument& canonical_input);

// {candidates:[{candidate_id, response}] (A, B, C), canonical_input, schema_version}.
// Errors (orchestration_failed): candidate ids other than exactly one each of A, B and C, or of
// A and B with `count` 2 (a quorum-2 run that answers from two candidates).
Result<CanonicalDocument> BuildBlindInput(const CanonicalDocument& canonical_input,
                                          std::vector<AnonymousCandidate> candidates,
                                          size_t count = kCandidateCount);

// {invalid_output, original_blind_input, schema_version, validation_errors}; the errors are capped
// by CapValidationErrors, and invalid UTF-8 in `invalid_output` becomes U+FFFD so that the
// evaluator's raw bytes can always be shown back to it.
Result<CanonicalDocument> BuildRepairInput(const CanonicalDocument& blind_input,
                                           const std::string& invalid_output,
                                           const std::vector<EvaluationError>& errors);

// {candidates (A, B, C), canonical_input, evaluation, schema_version}.
// REQUIRES: `evaluation` passed ValidateEvaluation. Errors as BuildBlindInput; `count` 2 is a
// validate run that dropped a reviewer or a quorum-2 run without its third candidate (A and B).
// `order_notes`, when set (a run whose order check ran: order_check.h's MergeOrderNotes), is the
// optional `order_check` key: per conflict {topic, instruction}, an order-sensitive one saying
// "order-sensitive: present both positions, do not pick one".
Result<CanonicalDocument> BuildMergeInput(const CanonicalDocument& canonical_input,
                                          std::vector<AnonymousCandidate> candidates,
                                          const nlohmann::json& evaluation,
                                          size_t count = kCandidateCount,
                                          const nlohmann::json* order_notes = nullptr);

}  // namespace pi_fusion::workflow
