// The stages after the candidates, which both sequences share: the anonymous letters, the blind
// evaluation with at most one repair (or the verified evaluation of the run a resumed run
// resumes), and the merger. A stage's failure is recorded as the run's (run_failure.h) before it
// is returned, except the letters', which the sequence records at its own stage.
//
// Called on the run's own thread only.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "run/run_context.h"
#include "store/resumability.h"
#include "workflow/anonymize.h"
#include "workflow/canonical_document.h"
#include "workflow/evaluation_contract.h"

namespace pi_fusion::run {

// The letters the evaluator and the merger see: `reused`'s when the run reuses an evaluation,
// else drawn at random. A validate run that dropped a reviewer, or a quorum-2 run that left a
// candidate out (`left_out`), gives it C, so the other two are A and B.
Result<workflow::AnonymousMap> AnonymizeOrReuse(RunContext& ctx,
                                                const store::ReusedEvaluation* reused,
                                                std::optional<int> left_out);

// The evaluation of `blind` under `scope`: `reused`'s when set (ReuseEvaluation), else the
// evaluator's, repaired once when it does not validate. Its documents go with the merger's first
// row (ctx.carry).
Result<nlohmann::json> EvaluateOrReuse(RunContext& ctx, const store::ReusedEvaluation* reused,
                                       const workflow::CanonicalDocument& blind,
                                       const workflow::EvaluationScope& scope);

// The merger's answer to `input`.
Result<std::string> Merge(RunContext& ctx, const workflow::CanonicalDocument& input);

}  // namespace pi_fusion::run
