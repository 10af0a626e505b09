// result.json (pi-background-tasks.fusion-committed-result.v1): the committed answer's envelope.
//
//   {"schema_version": "pi-background-tasks.fusion-committed-result.v1",
//    "run_id": "<run id>",
//    "merged": {"path": "merged.md", "byte_length": N, "sha256": "sha256:<hex>"},
//    "details": {"schema_version": "pi-background-tasks.fusion-result.v6", ...}}
//
// `merged` binds merged.md's exact bytes; `details` is the workflow's result details, recorded
// verbatim apart from its schema id. Schema:
// schemas/artifacts/fusion-committed-result.v1.json.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "store/artifact_ref.h"

namespace pi_fusion::store {

// The details object with its schema id set, or kArtifactError when `details` is not an object
// or names another schema.
Result<nlohmann::json> StampResultDetails(nlohmann::json details);

nlohmann::json CommittedResultToJson(const std::string& run_id, const ArtifactRef& merged,
                                     const nlohmann::json& details);

// Checks a parsed result.json against the run: the closed shape, both schema ids, `run_id`, a
// `merged` ref equal to `merged_ref`, and (when details carry them) details.run_id and
// details.workflow. kArtifactError "result.json …" naming what differed.
Status CheckCommittedResult(const nlohmann::json& result, const std::string& run_id,
                            std::string_view workflow, const ArtifactRef& merged_ref);

}  // namespace pi_fusion::store
