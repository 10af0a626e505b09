// The clean-task canonical input `pi-background-tasks.fusion-input.v5` used by investigate,
// research and validate (seed-fusion-subsystem.md, "Context contracts").
//
// Exactly five keys:
//   {"context":{"kind":"clean_task"},"cwd":…,"request":{…normalized arguments…},
//    "schema_version":"pi-background-tasks.fusion-input.v5","workflow":"investigate"}
// `request` is the normalized structured arguments (schema/normalize.h) and is fully
// authoritative; its canonical JSON is the request text. No parent system prompt, conversation
// or omission ledger exists for these workflows, and `context` is a fixed object so the shape
// cannot grow one by accident. Research's declared sources travel inside the request
// (`request.sources`, already canonicalized and policy-checked by normalization).
//
// Pure; thread-safe.
#pragma once

#include <string>

#include "pi_fusion/status.h"
#include "schema/normalize.h"
#include "workflow/canonical_document.h"

namespace pi_fusion::workflow {

// Errors (context_capture_failed): an empty cwd, or a request of the reason workflow, which takes
// the session projection (context_projection.h) instead.
Result<CanonicalDocument> BuildCleanTaskInput(const std::string& cwd,
                                              const schema::NormalizedRequest& request);

}  // namespace pi_fusion::workflow
