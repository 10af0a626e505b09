// The failure view bg_result returns for a failed or cancelled run, built from the run directory
// alone and always at most kFailureViewMaxBytes of canonical JSON:
//
//   {"answer": {"present": false, "reason": "run_did_not_commit"},
//    "summary_status": "verified" | "legacy_manifest_only" | "integrity_failed" | "unavailable",
//    "failure": {code, message, message_bytes, stage, slot, attempt},
//    "progress": {...} | null, "usage_so_far": Usage | null,
//    "usage_by_role": [role rows] (store/role_usage.h), "model_requests": N | null,
//    "attempts": [...], "evidence_artifacts": [ref...], "remediation_ids": [...],
//    "omitted": {"attempts": N, "evidence_artifacts": N}}
//
// summary_status:
//   verified              the manifest binds failure-summary.json and its bytes, hash and
//                         identity check out; the view is the summary's projection.
//   legacy_manifest_only  the manifest binds no summary (a run written before summaries, or one
//                         whose single summary attempt failed); the view is derived from the
//                         verified manifest with the same rules as the summary.
//   integrity_failed      the manifest binds a summary that is missing, altered or foreign; the
//                         view is derived from the manifest and says so.
//   unavailable           the manifest itself cannot be read or parsed; the view carries only an
//                         artifact_error failure and remediation.
// Rows are dropped whole to fit: evidence from the end first, then the oldest attempts; every
// dropped row is counted in `omitted` (together with what the summary's own caps omitted).
//
// Thread-safe (reads only through the FileSystem seam).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "pi_fusion/status.h"

namespace pi_fusion::store {

// The view for the run in `run_dir`. kArtifactError when the manifest is readable but the run is
// not failed or cancelled (a running or completed run has no failure view).
Result<nlohmann::json> ReadFailureView(FileSystem& fs, const std::string& run_dir);

// Drops whole rows until CanonicalJson(view).size() <= max_bytes (see above). Exposed for tests.
// REQUIRES: `view` has the shape above.
void FitFailureView(nlohmann::json& view, size_t max_bytes);

}  // namespace pi_fusion::store
