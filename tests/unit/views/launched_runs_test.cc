// A launch row rendered again (every redraw, and after `pi -c` from the session) says how its run
// ended once it has (tasks/launched_runs.h, tool_result_view.h): from this Pi's registry, or from
// the run directory, read once when terminal and at most every kRecheckMs while not.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tasks/launched_runs.h"
#include "tasks/resume_hint.h"
#include "test_support.h"
#include "views/resume_texts.h"
#include "views/tool_result_view.h"

using namespace pi_fusion;
using namespace pi_fusion::tasks;
using namespace pi_fusion::views;
using nlohmann::json;
using store::testing::kRunId;
using store::testing::StoreFixture;

namespace {

json LaunchDetails(const std::string& dir) {
  return {{"schema_version", "pi-background-tasks.fusion-launch.v1"},
          {"task", {{"id", kRunId}}},
          {"run_id", kRunId},
          {"workflow", "reason"},
          {"artifact_dir", dir}};
}

json LaunchRow(const std::string& dir, const std::optional<TaskInfo>& ended) {
  return ToolResultView("fusion_reason", LaunchDetails(dir), "Started … Do not poll.", false, 0,
                        ended ? &*ended : nullptr);
}

}  // namespace

TEST_CASE("LaunchedRuns: a run of an earlier Pi that was cancelled by quitting reads so",
          "[tasks][launched_runs]") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  const std::string dir = f.store->run_dir();
  f.store->Fail(store::RunState::kCancelled,
                {"child_cancelled", "cancelled by quitting Pi", {}, {}, {}});
  f.store.reset();  // that Pi is gone
  TaskRegistry live;
  LaunchedRuns runs;
  const std::optional<TaskInfo> ended = runs.Ended(live, f.fs, kRunId, dir, 1000);
  REQUIRE(ended.has_value());
  CHECK(ended->state == TaskState::kKilled);
  CHECK(ended->cancelled_by == CancelSource::kQuit);
  const json row = LaunchRow(dir, ended);
  CHECK(row["state"] == "cancelled");
  CHECK(row["status"] ==
        "ran in the background and was cancelled by quitting Pi (" + std::string(kRunId) + ")");
  CHECK_THAT(row.dump(), !Catch::Contains("started in the background"));
  CHECK_THAT(row.dump(), !Catch::Contains("You will be notified"));

  // Terminal is final: the directory is not read again.
  std::filesystem::remove_all(dir);
  CHECK(runs.Ended(live, f.fs, kRunId, dir, 999999)->state == TaskState::kKilled);
}

TEST_CASE("LaunchedRuns: an earlier Pi's run with verified candidate answers says it resumes",
          "[tasks][launched_runs][resume]") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.RecordCandidates();
  const std::string dir = f.store->run_dir();
  f.store->Fail(store::RunState::kCancelled,
                {"child_cancelled", "cancelled by quitting Pi", {}, {}, {}});
  f.store.reset();
  TaskRegistry live;
  LaunchedRuns runs;
  const json row = LaunchRow(dir, runs.Ended(live, f.fs, kRunId, dir, 0));
  CHECK(row["notes"] == json::array({"Pi cancels active runs when it quits or reloads.",
                                     PersonResumeText({kRunId, {1, 2, 3}, false})}));
}

TEST_CASE("LaunchedRuns: completed and failed runs say how they ended", "[tasks][launched_runs]") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  const std::string dir = f.store->run_dir();
  f.store->Fail(store::RunState::kFailed,
                {"child_timeout", "candidate 2 ran past its timer", {}, {}, {}});
  TaskRegistry live;
  LaunchedRuns runs;
  const json failed = LaunchRow(dir, runs.Ended(live, f.fs, kRunId, dir, 0));
  CHECK(failed["state"] == "failed");
  CHECK(failed["status"] == "ran in the background and failed (" + std::string(kRunId) + ")");
  CHECK(failed["error"] == "child_timeout: candidate 2 ran past its timer");
  CHECK_FALSE(failed.contains("notes"));  // nothing verified, nothing to resume

  TaskInfo completed;
  completed.id = kRunId;
  completed.state = TaskState::kCompleted;
  const json done = LaunchRow(dir, completed);
  CHECK(done["state"] == "completed");
  CHECK(done["status"] == "ran in the background and completed (" + std::string(kRunId) + ")");
}

TEST_CASE(
    "LaunchedRuns: a run still running stays a launch row; its directory is re-read at most "
    "every kRecheckMs",
    "[tasks][launched_runs]") {
  StoreFixture f;  // the owner (this fixture) is alive
  f.WalkTo(store::RunState::kCandidatesRunning);
  const std::string dir = f.store->run_dir();
  TaskRegistry live;
  LaunchedRuns runs;
  CHECK_FALSE(runs.Ended(live, f.fs, kRunId, dir, 0).has_value());
  const json running = LaunchRow(dir, std::nullopt);
  CHECK(running["state"] == "running");
  CHECK(running["status"] == "started in the background (" + std::string(kRunId) + ")");

  f.store->Fail(store::RunState::kCancelled,
                {"child_cancelled", "cancelled by /reload", {}, {}, {}});
  CHECK_FALSE(runs.Ended(live, f.fs, kRunId, dir, LaunchedRuns::kRecheckMs - 1).has_value());
  const std::optional<TaskInfo> ended =
      runs.Ended(live, f.fs, kRunId, dir, LaunchedRuns::kRecheckMs);
  REQUIRE(ended.has_value());
  CHECK(ended->cancelled_by == CancelSource::kReload);

  // A directory that is not the run's own is never read.
  CHECK_FALSE(LaunchedRuns().Ended(live, f.fs, kRunId, f.dir.path(), 0).has_value());
}

TEST_CASE("LaunchedRuns: this Pi's registry answers for its own runs", "[tasks][launched_runs]") {
  TaskRegistry live;
  TaskInfo task;
  task.id = kRunId;
  task.workflow = "reason";
  live.Add(task, process::CancelToken());
  LaunchedRuns runs;
  store::testing::FaultFileSystem fs;
  CHECK_FALSE(runs.Ended(live, fs, kRunId, "/nowhere/" + std::string(kRunId), 0).has_value());
  REQUIRE(live.Kill(kRunId, CancelSource::kBgKill).ok());
  live.Finish(kRunId, TaskState::kKilled, "", "");
  const std::optional<TaskInfo> ended =
      runs.Ended(live, fs, kRunId, "/nowhere/" + std::string(kRunId), 0);
  REQUIRE(ended.has_value());
  CHECK(LaunchRow("/nowhere", ended)["status"] ==
        "ran in the background and was cancelled by bg_kill (" + std::string(kRunId) + ")");
}

TEST_CASE("LaunchedRuns: this Pi's failed run shows its failure line, not the rest of its text",
          "[tasks][launched_runs]") {
  TaskRegistry live;
  TaskInfo task;
  task.id = kRunId;
  task.workflow = "reason";
  live.Add(task, process::CancelToken());
  const std::string line = "Fusion failed (stage=merge, slot=none, attempt=1): child_timeout: idle";
  live.Finish(kRunId, TaskState::kFailed, line + "\nUsage so far: 4 model requests · …", line);
  store::testing::FaultFileSystem fs;
  const std::optional<TaskInfo> ended =
      LaunchedRuns().Ended(live, fs, kRunId, "/nowhere/" + std::string(kRunId), 0);
  REQUIRE(ended.has_value());
  CHECK(ended->failure == line);
  const json row = LaunchRow("/nowhere", ended);
  CHECK(row["status"] == "ran in the background and failed (" + std::string(kRunId) + ")");
  CHECK(row["error"] == line);
}
