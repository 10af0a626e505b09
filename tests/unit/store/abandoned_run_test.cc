// FinalizeIfAbandoned: a run whose owner is gone is finalized once, durably, as host_ended; a live,
// terminal, corrupt or unwritable run is reported as what it is.
#include "store/abandoned_run.h"

#include <sys/stat.h>

#include <cerrno>

#include <catch2/catch.hpp>

#include "store/constants.h"
#include "store/failure_view.h"
#include "store/verify.h"
#include "test_support.h"

using namespace pi_fusion;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using namespace pi_fusion::store::testing;

namespace {

// A run in the middle of its candidates whose host has died: the store (and its lock) is gone.
std::string AbandonedMidCandidates(StoreFixture& f) {
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  const std::string dir = f.store->run_dir();
  f.store.reset();  // the kernel drops a dead host's lock just so
  return dir;
}

}  // namespace

TEST_CASE("FinalizeIfAbandoned: a run whose host died ends failed host_ended, once",
          "[store][abandoned]") {
  StoreFixture f;
  const std::string dir = AbandonedMidCandidates(f);
  const Usage usage_so_far = ReadManifest(PosixFileSystem(), dir)->usage;

  Result<bool> finalized = FinalizeIfAbandoned(PosixFileSystem(), f.clock, dir);
  REQUIRE(finalized.ok());
  CHECK(*finalized);
  Result<Manifest> m = ReadManifest(PosixFileSystem(), dir);
  REQUIRE(m.ok());
  CHECK(m->state == RunState::kFailed);
  REQUIRE(m->error.has_value());
  CHECK(m->error->code == "host_ended");
  CHECK(m->error->stage == Stage::kCandidate);
  CHECK_THAT(m->error->message, Catch::Contains("candidates_running"));
  CHECK(m->usage == usage_so_far);
  CHECK(m->artifacts.count(kErrorFile) == 1);
  CHECK(m->artifacts.count(kFailureSummaryFile) == 1);
  // Every reader now says what finished and the usage so far; never "running", never an answer.
  Result<nlohmann::json> view = ReadFailureView(PosixFileSystem(), dir);
  REQUIRE(view.ok());
  CHECK(view->at("summary_status") == "verified");
  CHECK(view->at("failure").at("code") == "host_ended");
  CHECK(view->at("answer").at("present") == false);
  CHECK(view->at("progress").at("candidates").at("completed") == 3);
  CHECK(view->at("usage_so_far").at("input") == usage_so_far.input);

  Result<bool> again = FinalizeIfAbandoned(PosixFileSystem(), f.clock, dir);
  REQUIRE(again.ok());
  CHECK_FALSE(*again);
}

TEST_CASE("FinalizeIfAbandoned: a live owner's run and a terminal run are left alone",
          "[store][abandoned]") {
  StoreFixture f;
  f.WalkTo(RunState::kEvaluating);
  const std::string manifest = ReadAll(f.Path(kManifestFile));
  Result<bool> live = FinalizeIfAbandoned(PosixFileSystem(), f.clock, f.store->run_dir());
  REQUIRE(live.ok());
  CHECK_FALSE(*live);  // this process holds the lock: the run is running
  CHECK(ReadAll(f.Path(kManifestFile)) == manifest);

  f.store->Fail(RunState::kCancelled, {"child_cancelled", "cancelled", std::nullopt});
  const std::string dir = f.store->run_dir();
  f.store.reset();
  const std::string terminal = ReadAll(dir + "/" + kManifestFile);
  Result<bool> ended = FinalizeIfAbandoned(PosixFileSystem(), f.clock, dir);
  REQUIRE(ended.ok());
  CHECK_FALSE(*ended);
  CHECK(ReadAll(dir + "/" + kManifestFile) == terminal);
}

TEST_CASE("FinalizeIfAbandoned: a corrupt manifest is reported naming the file, nothing written",
          "[store][abandoned]") {
  StoreFixture f;
  const std::string dir = AbandonedMidCandidates(f);
  WriteAll(dir + "/" + kManifestFile, "{\"run_id\": \"SECRET");
  Result<bool> finalized = FinalizeIfAbandoned(PosixFileSystem(), f.clock, dir);
  REQUIRE_FALSE(finalized.ok());
  CHECK(finalized.status().code() == "artifact_error");
  CHECK_THAT(finalized.status().message(), Catch::Contains("manifest.json"));
  CHECK_THAT(finalized.status().message(), !Catch::Contains("SECRET"));
  CHECK_FALSE(Exists(dir + "/" + kErrorFile));
}

TEST_CASE("FinalizeIfAbandoned: a FIFO named manifest.json is refused at once",
          "[store][abandoned]") {
  StoreFixture f;
  const std::string dir = AbandonedMidCandidates(f);
  REQUIRE(::unlink((dir + "/" + kManifestFile).c_str()) == 0);
  REQUIRE(::mkfifo((dir + "/" + kManifestFile).c_str(), 0600) == 0);
  Result<bool> finalized = FinalizeIfAbandoned(PosixFileSystem(), f.clock, dir);  // never blocks
  REQUIRE_FALSE(finalized.ok());
  CHECK_THAT(finalized.status().message(),
             Catch::Contains("manifest.json") && Catch::Contains("not a regular file (a FIFO)"));
}

TEST_CASE("FinalizeIfAbandoned: a read-only run directory is an error, never 'running'",
          "[store][abandoned]") {
  StoreFixture f;
  const std::string dir = AbandonedMidCandidates(f);
  const std::string manifest = ReadAll(dir + "/" + kManifestFile);
  SECTION("the owner lock cannot be taken") { f.fs.FailOn(FsOp::kLock, EROFS); }
  SECTION("the lock is taken, but nothing can be written") {
    for (int i = 0; i < 8; ++i) f.fs.FailOn(FsOp::kCreateExclusive, EROFS);
  }
  Result<bool> finalized = FinalizeIfAbandoned(f.fs, f.clock, dir);
  REQUIRE_FALSE(finalized.ok());
  CHECK(finalized.status().code() == "artifact_error");
  CHECK_THAT(finalized.status().message(),
             Catch::Contains("host process ended") && Catch::Contains("Read-only file system"));
  CHECK(ReadAll(dir + "/" + kManifestFile) == manifest);  // untouched, still valid
}

TEST_CASE("Verification: every artifact read is bounded and of a regular file only",
          "[store][abandoned]") {
  StoreFixture f;
  const std::string dir = AbandonedMidCandidates(f);
  SECTION("a manifest over its cap is refused before it is read") {
    WriteAll(dir + "/" + kManifestFile, std::string(kManifestMaxBytes + 1, ' '));
    Result<Manifest> m = ReadManifest(PosixFileSystem(), dir);
    REQUIRE_FALSE(m.ok());
    CHECK_THAT(m.status().message(),
               Catch::StartsWith("manifest.json cannot be read") && Catch::Contains("limit"));
  }
  SECTION("a bound artifact replaced by a FIFO is refused, naming it") {
    const std::string name = AttemptPrefix({Stage::kCandidate, 1, 1}) + ".response.md";
    Result<Manifest> m = ReadManifest(PosixFileSystem(), dir);
    REQUIRE(m.ok());
    REQUIRE(::unlink((dir + "/" + name).c_str()) == 0);
    REQUIRE(::mkfifo((dir + "/" + name).c_str(), 0600) == 0);
    Result<std::string> bytes = VerifyArtifact(PosixFileSystem(), dir, m->artifacts.at(name));
    REQUIRE_FALSE(bytes.ok());
    CHECK(bytes.status().message() == name + ": is not a regular file");
  }
}
