// The adaptive panel's agreement check (fusion-models.json `policy.panel: "adaptive"`,
// docs/config.md; spec/CONTRACTS.md): after candidates 1 and 2 verified, a blind child on the
// evaluator's route says whether their two answers agree; only when they do not is the third
// candidate asked.
//
//   input  pi-background-tasks.fusion-agreement-input.v1
//          {schema_version, canonical_input, candidates[{candidate_id "A"|"B", response}]}
//   output pi-background-tasks.fusion-agreement.v1, closed:
//          {schema_version, agree: boolean, differences: [string]}
//          differences is empty when agree is true and names at least one difference when false;
//          every difference is a non-blank string.
// The output is read by the strict JSON rules of every model contract (strict_json.h); an
// unusable one gets one repair with the evaluation's repair input (stage_inputs.h), like the
// evaluator. Candidate 1's answer is always A and candidate 2's B: the checker sees no slot,
// model or route, and its verdict is symmetric.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"
#include "workflow/canonical_document.h"
#include "workflow/evaluation_contract.h"

namespace pi_fusion::workflow {

inline constexpr std::string_view kAgreementInputSchema =
    "pi-background-tasks.fusion-agreement-input.v1";
inline constexpr std::string_view kAgreementSchema = "pi-background-tasks.fusion-agreement.v1";

// True when two verified answers need no check: exactly equal, or equal once line endings are
// LF, every line's trailing white space (space, tab) is dropped and surrounding blank lines are
// trimmed — the differences a Markdown reader never sees.
bool AnswersIdentical(std::string_view a, std::string_view b);

// {schema_version, canonical_input, candidates [{A, first}, {B, second}]}.
Result<CanonicalDocument> BuildAgreementInput(const CanonicalDocument& canonical_input,
                                              const std::string& first, const std::string& second);

struct AgreementVerdict {
  bool agree = false;
  std::vector<std::string> differences;
};

struct AgreementCheck {
  std::optional<AgreementVerdict> verdict;  // set iff errors is empty
  std::vector<EvaluationError> errors;      // every violation, in document order
  bool ok() const { return errors.empty(); }
};

// Validates the checker's complete stdout.
AgreementCheck ValidateAgreement(std::string_view output);

// The evaluation_invalid Status for an unusable verdict after its repair, naming the first error
// and the count. REQUIRES: !errors.empty()
Status AgreementInvalid(const std::vector<EvaluationError>& errors);

// The checker's system prompt, and its repair's.
std::string AgreementSystemPrompt();
std::string AgreementRepairSystemPrompt();

}  // namespace pi_fusion::workflow
