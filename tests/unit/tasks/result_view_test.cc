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

}  // namespace
}  // namespace pi_fusion::tasks
