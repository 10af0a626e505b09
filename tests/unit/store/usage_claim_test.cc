// ClaimUsageOnce: true exactly once per run directory, across threads and processes.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/usage_claim.h"
#include "test_support.h"

using nlohmann::json;
using namespace pi_fusion::store;
using namespace pi_fusion::store::testing;

TEST_CASE("ClaimUsageOnce: the first claim wins and records the usage", "[store][claim]") {
  TempDir dir;
  FixedClock clock;
  auto& fs = pi_fusion::PosixFileSystem();
  CHECK(ClaimUsageOnce(fs, clock, dir.path(), kRunId, SampleUsage(7)).value() == true);
  CHECK(ClaimUsageOnce(fs, clock, dir.path(), kRunId, SampleUsage(7)).value() == false);
  CHECK(ClaimUsageOnce(fs, clock, dir.path(), kRunId, SampleUsage(8)).value() == false);
  const std::string path = dir.path() + "/" + kUsageClaimFile;
  CHECK(ModeOf(path) == 0600);
  const json claim = json::parse(ReadAll(path));
  CHECK(claim["run_id"] == kRunId);
  CHECK(claim["claimed_at"] == "2025-01-02T03:04:05.006Z");
  CHECK(claim["usage"] == UsageToJson(SampleUsage(7)));
}

TEST_CASE("ClaimUsageOnce: exactly one of many racing processes wins", "[store][claim]") {
  TempDir dir;
  constexpr int kProcesses = 8;
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      FixedClock clock;
      auto won =
          ClaimUsageOnce(pi_fusion::PosixFileSystem(), clock, dir.path(), kRunId, SampleUsage(1));
      ::_exit(!won.ok() ? 2 : won.value() ? 1 : 0);
    }
    children.push_back(pid);
  }
  int winners = 0, errors = 0;
  for (pid_t pid : children) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    winners += WEXITSTATUS(status) == 1;
    errors += WEXITSTATUS(status) == 2;
  }
  CHECK(winners == 1);
  CHECK(errors == 0);
}

TEST_CASE("ClaimUsageOnce: a write error removes the claim so a later retrieval can retry",
          "[store][claim]") {
  TempDir dir;
  FixedClock clock;
  FaultFileSystem fs;
  fs.FailOn(FsOp::kSync, EIO, kUsageClaimFile);
  auto first = ClaimUsageOnce(fs, clock, dir.path(), kRunId, SampleUsage(1));
  CHECK(first.status().code() == pi_fusion::kArtifactError);
  CHECK_FALSE(Exists(dir.path() + "/" + kUsageClaimFile));
  CHECK(ClaimUsageOnce(fs, clock, dir.path(), kRunId, SampleUsage(1)).value() == true);
}

TEST_CASE("ClaimUsageOnce: a claim left empty by a crash still counts (at most once)",
          "[store][claim]") {
  TempDir dir;
  FixedClock clock;
  FaultFileSystem fs;
  fs.CrashAfter(1);  // the exclusive create succeeds, then the process "dies"
  CHECK_FALSE(ClaimUsageOnce(fs, clock, dir.path(), kRunId, SampleUsage(1)).ok());
  CHECK(ReadAll(dir.path() + "/" + kUsageClaimFile).empty());
  CHECK(ClaimUsageOnce(pi_fusion::PosixFileSystem(), clock, dir.path(), kRunId, SampleUsage(1))
            .value() == false);
}
