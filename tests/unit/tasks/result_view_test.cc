// bg_result's view of a run (tasks/result_view.h): the times it writes come from the Clock it is
// given, never from the system clock, so a test sees them exactly.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "lifecycle_harness.h"
#include "store/constants.h"
#include "store/wall_clock.h"
#include "tasks/result_view.h"

namespace pi_fusion::tasks {
namespace {

using lifecycle_testing::Harness;
using store::testing::kRunId;
using store::testing::StoreFixture;

TEST_CASE("ResultView: the once-only usage claim is stamped by the given clock",
          "[tasks][result_view]") {
  Harness h;
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  Result<TaskInfo> task = h.registry.Resolve(h.sink.launch.run_id);
  REQUIRE(task.ok());
  REQUIRE(task->state == TaskState::kCompleted);
  h.clock.Advance(std::chrono::minutes(90));  // retrieved an hour and a half later
  Result<ResultView> view = BuildResultView(h.fs, h.clock, *task, Delivery::kInline);
  REQUIRE(view.ok());
  CHECK(view->attach_usage.has_value());
  const nlohmann::json claim =
      nlohmann::json::parse(store::testing::ReadAll(task->artifact_dir + "/usage-claim.json"));
  CHECK(claim.at("claimed_at") == store::FormatTimestamp(h.clock.WallNow()));
  CHECK(claim.at("claimed_at").get<std::string>().rfind("2025-01-02T", 0) == 0);
}

TEST_CASE("ResultView: a run found on disk whose owner is gone is finalized at the clock's time",
          "[tasks][result_view]") {
  StoreFixture f;
  f.WalkTo(store::RunState::kMerging);
  const std::string dir = f.store->run_dir();
  f.store.reset();  // the owner dies without finishing the run
  f.clock.Advance(std::chrono::hours(5));
  Result<std::optional<TaskInfo>> found = FindRunOnDisk(f.fs, f.clock, f.dir.path(), kRunId);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->state == TaskState::kFailed);
  Result<store::Manifest> manifest = store::ReadManifest(f.fs, dir);
  REQUIRE(manifest.ok());
  CHECK(manifest->state == store::RunState::kFailed);
  CHECK(manifest->updated_at == "2025-01-02T08:04:05.006Z");  // FixedClock + 5 h
}

TEST_CASE("ResolveTask: this process's runs, then this session's earlier ones, then the run store",
          "[tasks][result_view]") {
  StoreFixture f;
  f.WalkTo(store::RunState::kMerging);
  const std::string dir = f.store->run_dir();
  TaskRegistry live;
  // Only the run store knows it: found there, by id and by the short id the views show.
  Result<TaskInfo> on_disk = ResolveTask(live, {}, f.fs, f.clock, f.dir.path(), kRunId);
  REQUIRE(on_disk.ok());
  CHECK(on_disk->artifact_dir == dir);
  CHECK(ResolveTask(live, {}, f.fs, f.clock, f.dir.path(), "01234567").ok());
  // This session's earlier run of the same id is the one meant.
  TaskInfo earlier;
  earlier.id = kRunId;
  earlier.artifact_dir = "/earlier/" + std::string(kRunId);
  Result<TaskInfo> from_session = ResolveTask(live, {earlier}, f.fs, f.clock, f.dir.path(), kRunId);
  REQUIRE(from_session.ok());
  CHECK(from_session->artifact_dir == earlier.artifact_dir);
  // Without a project, and for an id nobody knows: the registry's miss.
  CHECK_FALSE(ResolveTask(live, {}, f.fs, f.clock, "", kRunId).ok());
  Result<TaskInfo> unknown =
      ResolveTask(live, {}, f.fs, f.clock, f.dir.path(), "reason-ffffffffffffffffffffffffffffffff");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message().find("reason-ffff") != std::string::npos);
}

}  // namespace
}  // namespace pi_fusion::tasks
