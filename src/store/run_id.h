// Run ids: `<workflow>-<32 lowercase hex>`, 128 bits from a cryptographic source. The id is the
// task id users pass to bg_result, the run directory's name, and the manifest's `run_id`.
// Thread-safe: pure functions apart from the RandomSource they are given.
#pragma once

#include <string>
#include <string_view>

#include "core/random_id.h"
#include "core/workflow_id.h"
#include "pi_fusion/status.h"

namespace pi_fusion::store {

// True for "reason", "investigate", "research" and "validate".
bool IsWorkflow(std::string_view workflow);

// A fresh id for `workflow` from `random` (SystemRandom() in production; a run takes it from its
// seams, so a test's fixed source gives a fixed id). Fails with kRandomUnavailable when the source
// does.
Result<std::string> NewRunId(Workflow workflow, RandomSource& random);

// True when `id` matches ^(reason|investigate|research|validate)-[0-9a-f]{32}$.
bool IsValidRunId(std::string_view id);

// The workflow part of a valid id ("reason" for "reason-<hex>").
// REQUIRES: IsValidRunId(id)
std::string_view RunIdWorkflow(std::string_view id);

// The short form the views show a person ("ac1705e2" for "reason-ac1705e2…"): the first eight
// hex digits (a text without a dash is returned whole).
std::string_view ShortRunId(std::string_view id);

// True when a person's `query` names `id`: the whole id, a prefix of it ("reason-ac17"), or a
// prefix of its hex part ("ac1705e2", what the views show). An empty query names nothing.
bool RunIdMatches(std::string_view id, std::string_view query);

}  // namespace pi_fusion::store
