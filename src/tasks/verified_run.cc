#include "tasks/verified_run.h"

#include <algorithm>

#include "store/resumability.h"
#include "store/verify.h"
#include "tasks/run_catalog.h"

namespace pi_fusion::tasks {
namespace {

void AddProblem(VerifiedAnswers& run, const std::string& problem) {
  if (std::find(run.problems.begin(), run.problems.end(), problem) == run.problems.end()) {
    run.problems.push_back(problem);
  }
}

// The verified candidate answers of `m`, each re-read and checked against its ref: the bytes kept
// are the bytes that verified.
void ReadCandidates(FileSystem& fs, const std::string& run_dir, const store::Manifest& m,
                    VerifiedAnswers& run) {
  for (const int slot : store::VerifiedCandidateSlots(m)) {
    const store::ArtifactRef& ref = m.artifacts.at(store::CandidateResponseName(slot));
    Result<std::string> bytes = store::VerifyArtifact(fs, run_dir, ref);
    if (!bytes.ok()) {
      AddProblem(run, bytes.status().message());
      continue;
    }
    run.candidates.push_back(
        {slot, m.models.candidates[slot - 1].QualifiedId(), std::move(bytes).value(), ref});
  }
}

}  // namespace

VerifiedAnswers ReadVerifiedAnswers(FileSystem& fs, const std::string& run_dir) {
  VerifiedAnswers run;
  run.problems = CheckRun(fs, run_dir).problems;
  Result<store::Manifest> manifest = store::ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    if (run.problems.empty()) run.problems.push_back(manifest.status().message());
    return run;
  }
  run.manifest = std::move(manifest).value();
  if (!run.problems.empty()) return run;
  const store::Manifest& m = *run.manifest;
  if (m.state == store::RunState::kCompleted) {
    // bg_result's own verification, so the answer returned is the one it would return.
    Result<store::VerifiedResult> verified = store::VerifyCompletedRun(fs, run_dir, m.run_id);
    if (!verified.ok()) {
      AddProblem(run, verified.status().message());
      return run;
    }
    run.merged = std::move(verified->merged);
  }
  ReadCandidates(fs, run_dir, m, run);
  if (!run.problems.empty()) {  // an answer file changed since CheckRun: none of it is returned
    run.merged.reset();
    run.candidates.clear();
  }
  return run;
}

}  // namespace pi_fusion::tasks
