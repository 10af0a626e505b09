// The inputs of a resumed run (/fusion-resume), and what it reuses, taken from the run it resumes:
// its request and canonical input byte for byte, and its five routes pinned as they were resolved
// then (admitted again by preflight under today's policy). The current fusion-models.json still
// gives the run its policy (quorum, grace, cost cap): that is what the person may have changed to
// resume.
//
// Pure; thread-safe.
#pragma once

#include <vector>

#include "config/models_config.h"
#include "pi_fusion/status.h"
#include "run/run_request.h"
#include "schema/normalize.h"
#include "store/resumability.h"
#include "workflow/canonical_document.h"

namespace pi_fusion::run {

// The old canonical input as a document whose bytes are exactly the old file's.
Result<workflow::CanonicalDocument> ResumedCanonicalInput(const store::ResumeSource& source);

// The request of `input` (ResumedCanonicalInput of `source`), normalized again by today's rules;
// run_not_resumable when it is not of the old run's workflow or no longer normalizes to the same
// canonical bytes.
Result<schema::NormalizedRequest> ResumedRequest(const store::ResumeSource& source,
                                                 const workflow::CanonicalDocument& input);

// `current` with its five selections replaced by the old run's resolved routes ("provider/id").
config::ModelsConfig PinnedRoutes(const store::RunModels& old, config::ModelsConfig current);

// The route `slot` ran on in a run whose manifest records `models`.
const store::ModelSelection& SlotRoute(const store::RunModels& models, Slot slot);

// The slots whose answers a resume of `source` reuses, in slot order: its verified candidates
// and, when the evaluation is reused too (ReusedEvaluationOf), the evaluator.
std::vector<Slot> ReusedSlots(const store::ResumeSource& source);

// /fusion-resume @<panel>: `panel`'s route for every slot whose answer the resume does not reuse
// and that `explicit_swaps` does not name (--slot wins), in slot order.
std::vector<RouteSwap> PanelSwaps(const store::ResumeSource& source,
                                  const config::ModelsConfig& panel,
                                  const std::vector<RouteSwap>& explicit_swaps);

// `pinned` (PinnedRoutes) with each swap's route in its slot (/fusion-resume --slot).
// invalid_arguments naming the slot, its model and the slots that may change when a swap names a
// slot whose verified answer is reused: a reused answer keeps the model that wrote it.
Result<config::ModelsConfig> SwapRoutes(const store::ResumeSource& source,
                                        const std::vector<RouteSwap>& swaps,
                                        config::ModelsConfig pinned);

// What a prepared run reuses (run.resume); for a run started afresh: nothing.
// The old run's verified attempt of candidate `slot`, or null when this run starts it.
const store::ReusedAttempt* ReusedCandidateOf(const PreparedRun& run, int slot);
size_t ReusedCandidateCount(const PreparedRun& run);
// The old run's evaluation, reused only when every candidate is (so the blind input is the same
// bytes under the same letters) and it is the kind this run asks for (fusion-evaluation.v2 under
// policy.evaluator_tools, v1 otherwise); null otherwise.
const store::ReusedEvaluation* ReusedEvaluationOf(const PreparedRun& run);

}  // namespace pi_fusion::run
