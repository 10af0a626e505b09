// The adaptive panel's decision (fusion-models.json `policy.panel: "adaptive"`): once candidates
// 1 and 2 verified, do their answers agree? Identical answers (workflow::AnswersIdentical) need no
// call; a resumed run whose candidates 1 and 2 are both reused from the run it resumes takes that
// run's decision (its inputs are unchanged); otherwise the agreement check runs as a blind child
// on the evaluator's route (workflow/agreement_check.h), with one repair like the evaluator's,
// within the run's cost cap. The decision is recorded in the manifest (store::AdaptiveRecord)
// before anything else runs, kept in ctx.adaptive for the result details, and said as a progress
// note (adaptive_text.h).
//
// Runs on the run's own thread.
#pragma once

#include <string>

#include "pi_fusion/status.h"
#include "run/run_context.h"

namespace pi_fusion::run {

// True: they agree (the third candidate is not asked). A failure is recorded as the run's
// (stage agreement) before it is returned.
Result<bool> DecideAgreement(RunContext& ctx, const std::string& first, const std::string& second);

}  // namespace pi_fusion::run
