// Verification of a stored run for bg_result: nothing is returned from a run directory until every
// byte the manifest binds has been re-read and checked.
//
// Works from the directory alone, so a run completed before a Pi restart is retrievable by id.
// Thread-safe (reads only through the FileSystem seam).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/manifest.h"
#include "store/usage.h"

namespace pi_fusion::store {

struct VerifiedResult {
  std::string merged;       // merged.md: verified bytes, valid UTF-8
  std::string merged_path;  // absolute path of merged.md (artifact delivery)
  ArtifactRef merged_ref;
  nlohmann::json details;  // result.json `details` (fusion-result.v6)
  Manifest manifest;
  Usage usage;  // the run's cumulative usage
};

// Reads and strictly parses `run_dir`/manifest.json (manifest.h). kArtifactError otherwise.
Result<Manifest> ReadManifest(FileSystem& fs, const std::string& run_dir);

// Verifies a completed run whose id is `run_id`:
//   manifest: the v4 schema id, run_id == `run_id`, workflow == the id's prefix, state completed;
//   every ref in the manifest: a regular file with the recorded byte_length and sha256;
//   result.json: canonical JSON, shape {schema_version, run_id, merged, details}, committed-result
//     v1 id, its run_id, `merged` equal to the manifest's merged.md ref, details fusion-result.v6;
//   merged.md: the bound bytes, valid UTF-8.
// Any mismatch is kArtifactError naming the file and what differed.
Result<VerifiedResult> VerifyCompletedRun(FileSystem& fs, const std::string& run_dir,
                                          const std::string& run_id);

}  // namespace pi_fusion::store
