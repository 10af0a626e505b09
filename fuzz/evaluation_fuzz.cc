// The blind evaluator's output contract on hostile model output, as v1 and as v2 (an evaluator
// with tools, whose checked_claims carry citations). Invariants: an output is either accepted
// with the parsed object or refused with at least one located error, and the capped error list
// and the typed status can always be built from the errors.
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "workflow/evaluation_contract.h"

namespace {

void CheckAgainst(std::string_view output, const pi_fusion::workflow::EvaluationScope& scope) {
  using namespace pi_fusion::workflow;
  const EvaluationCheck check = ValidateEvaluation(output, scope);
  FUZZ_CHECK(check.ok() == check.evaluation.has_value());
  if (check.ok()) {
    FUZZ_CHECK(check.evaluation->is_object());
    check.evaluation->dump();  // the accepted object is printable (valid UTF-8 throughout)
    return;
  }
  for (const EvaluationError& error : check.errors) {
    FUZZ_CHECK(!error.path.empty() && error.path[0] == '$');
  }
  CapValidationErrors(check.errors);
  FUZZ_CHECK(!EvaluationInvalid(check.errors, scope).ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view output(reinterpret_cast<const char*>(data), size);
  CheckAgainst(output, {});
  pi_fusion::workflow::EvaluationScope with_claims;
  with_claims.checked_claims = true;
  CheckAgainst(output, with_claims);
  return 0;
}
