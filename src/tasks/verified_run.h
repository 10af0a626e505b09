// The verified answers of one run, read as `pi-fusion show` and /fusion-continue read them: nothing
// of a run is returned until every artifact its manifest binds has been verified (CheckRun, and
// for a completed run bg_result's own store::VerifyCompletedRun); the answers returned are the
// bytes that verified, each candidate's re-read and checked against its ref once more.
//
// Reads through the FileSystem seam and writes nothing (no usage claim, no lock, no
// finalization of an interrupted run). Thread-safe as far as `fs` is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/file_system.h"
#include "store/artifact_ref.h"
#include "store/manifest.h"

namespace pi_fusion::tasks {

struct VerifiedCandidate {
  int slot = 0;        // 1..3
  std::string model;   // "provider/model"
  std::string answer;  // its verified response, as written
  store::ArtifactRef ref;
};

struct VerifiedAnswers {
  std::optional<store::Manifest> manifest;  // when manifest.json parses
  // What failed verification, each naming its artifact; empty when every one verified. When not
  // empty, `merged` and `candidates` are empty.
  std::vector<std::string> problems;
  std::optional<std::string> merged;          // a completed run's verified merged answer
  std::vector<VerifiedCandidate> candidates;  // store::VerifiedCandidateSlots, ascending
};

// The run in `run_dir`, verified first.
VerifiedAnswers ReadVerifiedAnswers(FileSystem& fs, const std::string& run_dir);

}  // namespace pi_fusion::tasks
