// What a resumed run reuses of the run it resumes, in its sequences' terms (resume_inputs.h says
// what that is): a candidate's or reviewer's verified attempt in place of its child, the old
// anonymous letters, and the old verified evaluation in place of the evaluator. A run started
// afresh reuses nothing, and these run its children.
#pragma once

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "run/child_stage.h"
#include "run/run_context.h"
#include "store/resumability.h"
#include "workflow/anonymize.h"
#include "workflow/canonical_document.h"
#include "workflow/evaluation_contract.h"

namespace pi_fusion::run {

// A candidate (or reviewer) child, or its verified attempt of the run this one resumes
// (ReuseStageChild). It runs on the candidate's (reviewer's) own thread, and is that thread's one
// catch (thread_entry.h): an exception from the stage below becomes the stage's internal error.
StageResult RunOrReuse(RunContext& ctx, const StageChild& child,
                       const process::CancelToken& cancel);

// The old run's anonymous letters, set as this run's.
Result<workflow::AnonymousMap> ReuseAnonymousMap(RunContext& ctx,
                                                 const store::ReusedEvaluation& reused);

// The old run's verified evaluation in place of the evaluator: valid only for the very blind
// input it judged, and checked again against this run's scope. Its attempts are copied and
// recorded as reused; the documents go with the merger's first row, as after an evaluation. A
// failure is recorded as the run's (run_failure.h) before it is returned.
Result<nlohmann::json> ReuseEvaluation(RunContext& ctx, const store::ReusedEvaluation& reused,
                                       const workflow::CanonicalDocument& blind,
                                       const workflow::EvaluationScope& scope);

}  // namespace pi_fusion::run
