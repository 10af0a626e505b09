// The inputs of a resumed run (/fusion-resume), taken from the run it resumes: its request and
// canonical input byte for byte, and its five routes pinned as they were resolved then (admitted
// again by preflight under today's policy). The current fusion-models.json still gives the run
// its policy (quorum, grace, cost cap): that is what the person may have changed to resume.
//
// Pure; thread-safe.
#pragma once

#include "config/models_config.h"
#include "pi_fusion/status.h"
#include "schema/normalize.h"
#include "store/resumability.h"
#include "workflow/canonical_document.h"

namespace pi_fusion::workflow {

// The old run's request, normalized again by today's rules; run_not_resumable when it no longer
// normalizes to the same canonical bytes, or the input is not the old run's canonical input.
Result<schema::NormalizedRequest> ResumedRequest(const store::ResumeSource& source);

// The old canonical input as a document whose bytes are exactly the old file's.
Result<CanonicalDocument> ResumedCanonicalInput(const store::ResumeSource& source);

// `current` with its five selections replaced by the old run's resolved routes ("provider/id").
config::ModelsConfig PinnedRoutes(const store::RunModels& old, config::ModelsConfig current);

}  // namespace pi_fusion::workflow
