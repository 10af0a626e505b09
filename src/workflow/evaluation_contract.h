// The blind evaluator's output contract `pi-background-tasks.fusion-evaluation.v1`
// (schemas/artifacts/fusion-evaluation.v1.json; docs/workflow.md, "Evaluation contract").
//
// The evaluator's whole stdout, trimmed of surrounding JSON whitespace only, must be exactly one
// JSON object: no Markdown fence is stripped, no trailing prose tolerated, no duplicate keys. The
// object is closed at every level:
//   schema_version        "pi-background-tasks.fusion-evaluation.v1"
//   candidate_assessments exactly one {candidate_id, summary, strengths[], limitations[],
//                         useful_contributions[], risks[]} for each candidate of the scope
//                         (A, B and C; only A and B for a validate run that dropped a reviewer)
//   agreements[]          strings
//   conflicts[]           {topic, positions[{candidate_id, position}], resolution}; positions
//                         come from at least two distinct candidates, one per candidate
//   synthesis_plan        {must_include[{candidate_id, contribution}], must_resolve[],
//   must_avoid[]}
//   validation_accounting validate only, and then required: every host-assigned source finding
//                         accounted for exactly once (validation_accounting.h)
//   checked_claims        only with scope.checked_claims (policy.evaluator_tools), and then
//                         required, with schema_version "pi-background-tasks.fusion-evaluation.v2":
//                         at most kMaxCheckedClaims {claim (non-blank, at most
//                         kMaxCheckedClaimBytes), verdict "supported" | "refuted" | "unclear",
//                         evidence[] (at most kMaxClaimEvidence, each exactly one line citation
//                         `path:line` or `path:line-line`; empty only for "unclear")}
// Every string is non-blank; arrays may be empty. A key that names a score, rank, winner or
// "best" (case-insensitive substring) is rejected wherever it appears, so a blind evaluation can
// never smuggle a verdict past the contract.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

struct EvaluationError {
  std::string path;     // "$.conflicts[0].positions[1].candidate_id"; "$" is the whole output
  std::string message;  // "duplicate position for candidate A"
  // The same fact without any text of the output it describes (a key or an id the model chose),
  // for error.json and notices, which never carry model text; empty when `path` and `message`
  // quote nothing of the output.
  std::string record;

  // For the model (the repair prompt): everything, the output's own keys and ids included.
  std::string ToString() const { return path + ": " + message; }
  // For the run's records: never a byte of the output.
  std::string Record() const { return record.empty() ? ToString() : record; }
  // The fact is its path and message; `record` is another wording of it.
  bool operator==(const EvaluationError& other) const {
    return path == other.path && message == other.message;
  }
};

struct EvaluationCheck {
  std::optional<nlohmann::json> evaluation;  // the parsed object, set iff errors is empty
  std::vector<EvaluationError> errors;       // every violation found, in document order

  bool ok() const { return errors.empty(); }
};

// What one run's evaluation must cover.
struct EvaluationScope {
  // The anonymous candidates the evaluator saw, in order; candidate ids outside it are errors.
  std::vector<std::string> candidate_ids = {"A", "B", "C"};
  // Set for validate runs: the host-assigned source finding ids (validation_findings.h) that
  // validation_accounting must account for. Unset: validation_accounting is an unsupported key.
  std::optional<std::vector<std::string>> source_finding_ids;
  // Set when the evaluator had tools (policy.evaluator_tools): the evaluation is v2 and carries
  // checked_claims. Unset: v1, and checked_claims is an unsupported key.
  bool checked_claims = false;
};

// Validates the evaluator's complete stdout against `scope`.
EvaluationCheck ValidateEvaluation(std::string_view output, const EvaluationScope& scope = {});

// The error list as the repair child sees it: at most kRepairMaxErrors entries of at most
// kRepairMaxErrorBytes UTF-8 bytes each ("..." marks a cut), at most kRepairMaxTotalBytes in
// all; when errors are dropped a final note says how many. Order is kept.
std::vector<std::string> CapValidationErrors(const std::vector<EvaluationError>& errors);

// The evaluation_invalid Status for a failed check against `scope`, naming the schema id, the first
// error and the count. REQUIRES: !errors.empty()
Status EvaluationInvalid(const std::vector<EvaluationError>& errors,
                         const EvaluationScope& scope = {});

}  // namespace pi_fusion::workflow
