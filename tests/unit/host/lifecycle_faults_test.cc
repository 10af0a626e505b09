// RunLifecycle under file-system faults, every write enumerated rather than picked by hand: a clean
// run is counted first, then the launch is repeated with the k-th write failing (a full disk) or
// with the host "killed" at the k-th write (nothing reaches the disk after it), for every k. Each
// must end in a manifest.json that is valid and in a legal state, and in a truthful report, also
// as a later host process finds the directory (FinalizeIfAbandoned from a fresh view).
#include <cerrno>

#include "lifecycle_harness.h"
#include "store/abandoned_run.h"
#include "store/constants.h"
#include "store/failure_view.h"
#include "store/run_state.h"

using namespace lifecycle_testing;
using store::RunState;

namespace {

constexpr char kNoSpace[] = "No space left on device";

// The mutating file-system calls of one clean launch, preflight and commit included.
int CountWrites() {
  Harness clean;
  clean.Run();
  REQUIRE(clean.sink.terminal.has_value());
  REQUIRE(clean.sink.terminal->outcome.end == run::RunEnd::kCompleted);
  return clean.fs.mutating_calls();
}

// What any later reader finds in `dir`, with the POSIX file system (a fresh process's view).
void CheckLegalOnDisk(const std::string& dir, RunState expected) {
  Result<store::Manifest> m = store::ReadManifest(PosixFileSystem(), dir);
  REQUIRE(m.ok());
  CHECK(m->state == expected);
  if (expected == RunState::kCompleted) {
    CHECK(store::VerifyCompletedRun(PosixFileSystem(), dir, m->run_id).ok());
    return;
  }
  REQUIRE(m->error.has_value());
  Result<nlohmann::json> view = store::ReadFailureView(PosixFileSystem(), dir);
  REQUIRE(view.ok());
  CHECK(view->at("answer").at("present") == false);
  CHECK(view->at("failure").at("code") == m->error->code);
}

}  // namespace

TEST_CASE("RunLifecycle: a full disk at each write of preflight and commit ends legal and truthful",
          "[tasks][lifecycle][faults]") {
  const int writes = CountWrites();
  INFO("writes in a clean launch: " << writes);
  REQUIRE(writes > 20);
  int preflight_failures = 0, run_failures = 0;
  for (int k = 1; k <= writes; ++k) {
    INFO("write #" << k << " fails with ENOSPC");
    Harness h;
    h.fs.FailMutatingCall(k, ENOSPC);
    h.Run();
    REQUIRE(h.sink.launched);
    if (!h.sink.launch.ok) {
      // Preflight: reported as the full disk itself, and no child ever started.
      ++preflight_failures;
      CHECK(h.sink.launch.error.code() == "artifact_error");
      CHECK_THAT(h.sink.launch.error.message(), Catch::Contains(kNoSpace));
      CHECK_THAT(h.sink.launch.receipt_text, Catch::Contains(kNoSpace));
      CHECK(h.launcher.started().empty());
      CHECK_FALSE(h.sink.terminal.has_value());
      if (h.sink.launch.artifact_dir.empty()) continue;
      if (!store::testing::Exists(h.sink.launch.artifact_dir + "/" + store::kManifestFile))
        continue;
      CheckLegalOnDisk(h.sink.launch.artifact_dir, RunState::kFailed);
      continue;
    }
    REQUIRE(h.sink.terminal.has_value());
    const run::RunOutcome& outcome = h.sink.terminal->outcome;
    if (outcome.end == run::RunEnd::kCompleted) {
      CheckLegalOnDisk(h.sink.launch.artifact_dir, RunState::kCompleted);
      continue;
    }
    // A run that failed says why: the full disk, in the notice and in its durable error.
    ++run_failures;
    CHECK(outcome.end == run::RunEnd::kFailed);
    CHECK(outcome.error.code() == "artifact_error");
    CHECK_THAT(h.sink.terminal->text, Catch::Contains(kNoSpace));
    CheckLegalOnDisk(h.sink.launch.artifact_dir, RunState::kFailed);
    // The host still lives (its lock was released when the run ended): nothing to finalize.
    Result<bool> finalized =
        store::FinalizeIfAbandoned(PosixFileSystem(), h.clock, h.sink.launch.artifact_dir);
    REQUIRE(finalized.ok());
    CHECK_FALSE(*finalized);
  }
  // Both halves were reached: preflight writes and the run's (children's records, commit).
  CHECK(preflight_failures > 0);
  CHECK(run_failures > 0);
}

TEST_CASE("RunLifecycle: the host killed at each write leaves a run a later host finalizes",
          "[tasks][lifecycle][faults]") {
  const int writes = CountWrites();
  int finalized_runs = 0, no_manifest = 0, completed = 0;
  for (int k = 0; k < writes; ++k) {
    INFO("the host dies before write #" << k + 1);
    Harness h;
    h.fs.CrashAfter(k);
    h.Run();
    REQUIRE(h.sink.launched);
    CHECK(h.fs.crashed());
    // RunLifecycle has returned, so the run's owner lock is released, as a dead host's would be.
    const std::string dir = h.sink.launch.artifact_dir;
    if (dir.empty()) {  // died before the run directory existed: no run to report
      CHECK_FALSE(h.sink.launch.ok);
      ++no_manifest;
      continue;
    }
    if (!store::testing::Exists(dir + "/" + store::kManifestFile)) {
      ++no_manifest;  // died before the first manifest was published: no run to report
      continue;
    }
    store::testing::FixedClock clock;
    Result<store::Manifest> before = store::ReadManifest(PosixFileSystem(), dir);
    REQUIRE(before.ok());  // never a torn manifest
    Result<bool> finalized = store::FinalizeIfAbandoned(PosixFileSystem(), clock, dir);
    REQUIRE(finalized.ok());
    CHECK(*finalized == !store::IsTerminal(before->state));
    Result<store::Manifest> after = store::ReadManifest(PosixFileSystem(), dir);
    REQUIRE(after.ok());
    REQUIRE(store::IsTerminal(after->state));  // never "running" again
    if (after->state == RunState::kCompleted) {
      ++completed;
      CheckLegalOnDisk(dir, RunState::kCompleted);
      continue;
    }
    if (*finalized) {
      ++finalized_runs;
      CHECK(after->error->code == "host_ended");
      CHECK(after->usage == before->usage);  // the usage so far, unchanged
      CHECK(after->attempts.size() == before->attempts.size());
    }
    CheckLegalOnDisk(dir, after->state);
    // A second look changes nothing.
    Result<bool> again = store::FinalizeIfAbandoned(PosixFileSystem(), clock, dir);
    REQUIRE(again.ok());
    CHECK_FALSE(*again);
  }
  CHECK(no_manifest > 0);
  CHECK(finalized_runs > 0);
  CHECK(completed > 0);  // the host died after the commit: the answer stands
}
