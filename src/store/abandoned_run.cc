#include "store/abandoned_run.h"

#include "core/error_codes.h"
#include "store/owner_lock.h"
#include "store/run_store.h"
#include "store/verify.h"

namespace pi_fusion::store {
namespace {

// The stage a run was in, as the failure channel names it; none before the candidates.
std::optional<Stage> StageOf(RunState state) {
  switch (state) {
    case RunState::kCandidatesRunning:
    case RunState::kCandidatesComplete:
      return Stage::kCandidate;
    case RunState::kEvaluating:
    case RunState::kEvaluationComplete:
      return Stage::kEvaluation;
    case RunState::kMerging:
      return Stage::kMerge;
    default:
      return std::nullopt;
  }
}

}  // namespace

Result<bool> FinalizeIfAbandoned(FileSystem& fs, const Clock& clock, const std::string& run_dir) {
  Result<Manifest> manifest = ReadManifest(fs, run_dir);
  if (!manifest.ok()) return manifest.status();
  if (IsTerminal(manifest->state)) return false;
  Result<bool> alive = OwnerAlive(fs, run_dir);
  if (!alive.ok()) return alive.status();
  if (*alive) return false;
  // Taking the lock makes this host the run's owner for the finalization.
  Result<std::unique_ptr<FileLock>> lock = AcquireOwnerLock(fs, run_dir);
  if (!lock.ok()) {
    // Another host took it first and finalizes the run; otherwise this one cannot (a read-only
    // directory), and must say so rather than let the run pass for running.
    Result<bool> taken = OwnerAlive(fs, run_dir);
    if (taken.ok() && *taken) return false;
    return Status::Error(kArtifactError,
                         "the run's host process ended, but the run cannot be finalized: " +
                             lock.status().message());
  }
  // Re-read under the lock: another host may have finalized it in between.
  manifest = ReadManifest(fs, run_dir);
  if (!manifest.ok()) return manifest.status();
  if (IsTerminal(manifest->state)) return false;
  const RunState was = manifest->state;
  std::unique_ptr<RunStore> store =
      RunStore::Adopt(fs, clock, run_dir, std::move(manifest).value(), std::move(lock).value());
  RunError error{kHostEnded,
                 "the run's host process ended before the run did (it was " +
                     std::string(RunStateName(was)) + "); nothing will finish it",
                 StageOf(was), std::nullopt, std::nullopt};
  FailReport report = store->Fail(RunState::kFailed, std::move(error));
  if (!report.terminal.ok()) {
    // The terminal manifest is what counts (error.json and the summary are subordinate to it).
    Result<Manifest> now = ReadManifest(fs, run_dir);
    if (now.ok() && IsTerminal(now->state)) return true;
    return Status::Error(kArtifactError,
                         "the run's host process ended, but the run cannot be finalized: " +
                             report.terminal.message());
  }
  return true;
}

}  // namespace pi_fusion::store
