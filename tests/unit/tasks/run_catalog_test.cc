// The run catalog behind `pi-fusion runs | verify | prune`, over real run directories written by
// the run store in a temp dir.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <set>

#include "store/run_paths.h"
#include "store/verify.h"
#include "tasks/run_catalog.h"
#include "tasks/run_lookup.h"
#include "tasks/session_runs.h"
#include "test_support.h"

namespace pi_fusion::tasks {
namespace {

using store::testing::kRunId;
using store::testing::StoreFixture;
using store::testing::TempDir;

constexpr int64_t kDayMs = 24LL * 3600 * 1000;

int64_t CreatedMs() {
  return *TimestampMillis("2025-01-02T03:04:05.006Z");  // FixedClock's instant
}

TEST_CASE("RunCatalog: timestamps and ages") {
  CHECK(TimestampMillis("1970-01-02T00:00:01.500Z") == 86401500);
  CHECK(TimestampMillis("2025-01-02T03:04:05.006Z") == 1735787045006);
  CHECK_FALSE(TimestampMillis("2025-01-02 03:04:05Z"));
  CHECK(*ParseAge("30d") == std::chrono::hours(720));
  CHECK(*ParseAge("12h") == std::chrono::hours(12));
  CHECK(*ParseAge("45m") == std::chrono::minutes(45));
  CHECK(*ParseAge("90s") == std::chrono::seconds(90));
  for (const char* bad : {"", "d", "0d", "-1d", "30", "30x", "1.5h", "30 d", "99999999999d"}) {
    INFO(bad);
    CHECK(ParseAge(bad).status().code() == "invalid_arguments");
  }
}

TEST_CASE("RunCatalog: a live owner is never interrupted and never pruned") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  std::vector<RunListing> runs = ListRuns(f.fs, f.dir.path());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].run_id == kRunId);
  CHECK(runs[0].run_dir == f.store->run_dir());
  CHECK(runs[0].owner_alive);
  CHECK(runs[0].State() == "candidates_running");
  CHECK(runs[0].size_bytes > 0);
  const PruneFilter everything{std::chrono::milliseconds(0),
                               {"completed", "failed", "cancelled", "interrupted"}};
  CHECK(SelectForPrune(runs, everything, CreatedMs() + 365 * kDayMs).empty());

  // The owner goes away without finishing the run: the same directory is now interrupted.
  f.store.reset();
  runs = ListRuns(f.fs, f.dir.path());
  REQUIRE(runs.size() == 1);
  CHECK_FALSE(runs[0].owner_alive);
  CHECK(runs[0].State() == "interrupted");
  CHECK(SelectForPrune(runs, everything, CreatedMs() + 365 * kDayMs).size() == 1);
  // Not by default (terminal runs only), and not while younger than the age.
  CHECK(SelectForPrune(runs, PruneFilter{}, CreatedMs() + 365 * kDayMs).empty());
  const PruneFilter interrupted{std::chrono::hours(24), {"interrupted"}};
  CHECK(SelectForPrune(runs, interrupted, CreatedMs() + kDayMs - 1).empty());
  CHECK(SelectForPrune(runs, interrupted, CreatedMs() + kDayMs).size() == 1);
}

TEST_CASE(
    "SessionRunsOnDisk: a run whose owner is gone is finalized as host_ended, then reported") {
  StoreFixture f;
  f.WalkTo(store::RunState::kMerging);
  const char* session = "session/ünïcode id";  // SampleSpec's, written by pid 4242
  std::vector<TaskInfo> runs =
      SessionRunsOnDisk(f.fs, f.clock, f.dir.path(), session, /*own_pid=*/1);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].state == TaskState::kRunning);  // its owner holds the lock

  f.store.reset();  // the owner dies without finishing the run
  f.clock.Advance(std::chrono::hours(2));
  runs = SessionRunsOnDisk(f.fs, f.clock, f.dir.path(), session, /*own_pid=*/1);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].state == TaskState::kFailed);
  CHECK_THAT(runs[0].terminal_text, Catch::StartsWith("host_ended: "));
  Result<store::Manifest> disk = store::ReadManifest(f.fs, runs[0].artifact_dir);
  REQUIRE(disk.ok());
  CHECK(disk->state == store::RunState::kFailed);
  REQUIRE(disk->error.has_value());
  CHECK(disk->error->code == "host_ended");
  CHECK(disk->updated_at == "2025-01-02T05:04:05.006Z");  // finalized at the given clock's time
}

TEST_CASE("UnsavedSessionRuns: runs whose Pi session left no file, never this session's") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.store->Fail(store::RunState::kFailed, {"child_failed", "candidate 2 failed", {}, {}, {}});
  f.store.reset();
  const char* session = "session/ünïcode id";  // SampleSpec's, written by pid 4242
  const std::string sanitized = store::SanitizeSessionId(session);

  // Pi's session directory: files `<timestamp>_<id>.jsonl`, and things that are not sessions.
  TempDir pi_sessions;
  CHECK(SavedSessionIds(f.fs, pi_sessions.path() + "/missing").empty());
  std::ofstream(pi_sessions.path() + "/2025-01-02T03-04-05-006Z_other.jsonl") << "{}\n";
  std::ofstream(pi_sessions.path() + "/notes.txt") << "";
  CHECK(SavedSessionIds(f.fs, pi_sessions.path()) == std::set<std::string>{"other"});

  std::vector<TaskInfo> runs =
      UnsavedSessionRuns(f.fs, f.clock, f.dir.path(), SavedSessionIds(f.fs, pi_sessions.path()),
                         "a-session-of-now", /*limit=*/5);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].id == kRunId);
  CHECK(runs[0].unsaved_session);
  CHECK(runs[0].state == TaskState::kFailed);
  CHECK_FALSE(UnsavedSessionRuns(f.fs, f.clock, f.dir.path(), {}, "x", /*limit=*/0).size());
  // Its session is this one, or Pi saved it: not listed.
  CHECK(UnsavedSessionRuns(f.fs, f.clock, f.dir.path(), {}, session, 5).empty());
  CHECK(UnsavedSessionRuns(f.fs, f.clock, f.dir.path(), {sanitized}, "x", 5).empty());
}

TEST_CASE("RunCatalog: terminal runs are pruned by default after 30 days") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.store->Fail(store::RunState::kFailed, {"child_failed", "candidate 2 failed", {}, {}, {}});
  f.store.reset();
  const std::vector<RunListing> runs = ListRuns(f.fs, f.dir.path());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].State() == "failed");
  CHECK(SelectForPrune(runs, PruneFilter{}, CreatedMs() + 30 * kDayMs - 1).empty());
  CHECK(SelectForPrune(runs, PruneFilter{}, CreatedMs() + 30 * kDayMs).size() == 1);
  CHECK(
      SelectForPrune(runs, PruneFilter{kDefaultPruneAge, {"completed"}}, CreatedMs() + 99 * kDayMs)
          .empty());
}

TEST_CASE("RunCatalog: CheckRun names every altered artifact and never writes") {
  StoreFixture f;
  REQUIRE(f.store->WriteArtifact("budget-plan.json", "{\"a\":1}").ok());
  REQUIRE(
      f.store
          ->WriteArtifact("canonical-input.json", "{\"request\":{\"prompt\":\"  \\n Q?\\nmore\"}}")
          .ok());
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.store->Fail(store::RunState::kCancelled, {"cancelled", "bg_kill", {}, {}, {}});
  const std::string dir = f.store->run_dir();
  f.store.reset();
  CHECK(ListRuns(f.fs, f.dir.path())[0].question == "Q?");

  RunCheck check = CheckRun(f.fs, dir);
  CHECK(check.problems.empty());
  REQUIRE(check.manifest);
  CHECK(check.manifest->state == store::RunState::kCancelled);

  store::testing::WriteAll(dir + "/budget-plan.json", "{\"a\":2}");
  store::testing::WriteAll(dir + "/canonical-input.json", "{}");
  check = CheckRun(f.fs, dir);
  REQUIRE(check.problems.size() == 2);
  CHECK_THAT(check.problems[0], Catch::StartsWith("budget-plan.json: "));
  CHECK_THAT(check.problems[1], Catch::StartsWith("canonical-input.json: "));

  store::testing::WriteAll(dir + "/manifest.json", "{");
  check = CheckRun(f.fs, dir);
  CHECK_FALSE(check.manifest);
  REQUIRE(check.problems.size() == 1);
  CHECK_THAT(check.problems[0], Catch::Contains("manifest.json"));
}

TEST_CASE("RunCatalog: a run's duration ends at its end, also when its host ended first") {
  RunListing run;
  run.manifest = store::Manifest{};
  store::Manifest& m = *run.manifest;
  m.created_at = "2025-01-02T03:04:00.000Z";
  m.updated_at = "2025-01-09T00:00:00.000Z";  // when a later Pi looked at it, a week on
  store::AttemptRecord first;
  first.started_at = "2025-01-02T03:04:01.000Z";
  first.ended_at = "2025-01-02T03:04:20.000Z";
  store::AttemptRecord last;  // still running when its host died
  last.started_at = "2025-01-02T03:04:30.000Z";
  m.attempts = {first, last};

  m.state = store::RunState::kCandidatesRunning;
  run.owner_alive = true;
  CHECK_FALSE(run.DurationMs());  // running: no duration yet
  run.owner_alive = false;
  CHECK(run.State() == "interrupted");
  CHECK(run.DurationMs() == 30000);  // to its last recorded activity

  m.state = store::RunState::kFailed;
  m.error = store::RunError{"host_ended", "the run's host process ended", {}, {}, {}};
  CHECK(run.DurationMs() == 30000);  // finalized later: still its own end

  m.error = store::RunError{"child_timeout", "", {}, {}, {}};
  m.updated_at = "2025-01-02T03:05:00.000Z";
  CHECK(run.DurationMs() == 60000);  // an ordinary end: the last update

  m.created_at = "garbled";
  CHECK_FALSE(run.DurationMs());
}

TEST_CASE("FindRunOnDisk: a run of another session, named by id, prefix or short id") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);  // its owner (this fixture) is alive
  for (const char* query : {kRunId, "reason-0123", "01234567", "0123"}) {
    INFO(query);
    Result<std::optional<TaskInfo>> found = FindRunOnDisk(f.fs, f.clock, f.dir.path(), query);
    REQUIRE(found.ok());
    REQUIRE(found->has_value());
    CHECK((*found)->id == kRunId);
    CHECK((*found)->state == TaskState::kRunning);
    CHECK((*found)->artifact_dir == f.store->run_dir());
  }
  for (const char* query : {"", "23456789", "research-0123"}) {
    INFO(query);
    Result<std::optional<TaskInfo>> found = FindRunOnDisk(f.fs, f.clock, f.dir.path(), query);
    REQUIRE(found.ok());
    CHECK_FALSE(found->has_value());
  }
}

}  // namespace
}  // namespace pi_fusion::tasks

namespace pi_fusion::tasks {
namespace {

TEST_CASE("RunCatalog: failed, cancelled and interrupted runs with a verified answer resume") {
  SECTION("interrupted: its owner died after the candidates verified") {
    StoreFixture f;
    f.WalkTo(store::RunState::kCandidatesRunning);
    f.RecordCandidates();
    // A live owner: running, nothing to resume.
    CHECK_FALSE(ListRuns(f.fs, f.dir.path())[0].Resume().has_value());
    f.store.reset();
    const std::vector<RunListing> runs = ListRuns(f.fs, f.dir.path());
    REQUIRE(runs[0].State() == "interrupted");
    const std::optional<ResumeHint> hint = runs[0].Resume();
    REQUIRE(hint.has_value());
    CHECK(hint->run_id == kRunId);
    CHECK(hint->candidate_slots == std::vector<int>{1, 2, 3});
  }
  SECTION("interrupted before any candidate verified") {
    StoreFixture f;
    f.WalkTo(store::RunState::kCandidatesRunning);
    f.store.reset();
    const std::vector<RunListing> runs = ListRuns(f.fs, f.dir.path());
    REQUIRE(runs[0].State() == "interrupted");
    CHECK_FALSE(runs[0].Resume().has_value());
  }
  SECTION("failed after the candidates, and failed before them") {
    StoreFixture f;
    f.WalkTo(store::RunState::kCandidatesRunning);
    f.RecordCandidates();
    REQUIRE(f.store
                ->Fail(store::RunState::kFailed, {"child_exit_failed", "the merger failed",
                                                  pi_fusion::Stage::kMerge, std::nullopt, 1})
                .terminal.ok());
    CHECK(ListRuns(f.fs, f.dir.path())[0].Resume()->candidate_slots == std::vector<int>{1, 2, 3});
    StoreFixture early;
    REQUIRE(early.store->Fail(store::RunState::kFailed, {"model_unavailable", "no route"})
                .terminal.ok());
    CHECK_FALSE(ListRuns(early.fs, early.dir.path())[0].Resume().has_value());
  }
  SECTION("unreadable") {
    RunListing unreadable;
    CHECK_FALSE(unreadable.Resume().has_value());
  }
}

}  // namespace
}  // namespace pi_fusion::tasks
