// bg_result's answer for a run (views/result_answer.h): the times it writes come from the Clock
// it is given, never from the system clock, so a test sees them exactly.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "lifecycle_harness.h"
#include "store/constants.h"
#include "store/wall_clock.h"
#include "views/result_answer.h"

namespace pi_fusion::tasks {
using namespace pi_fusion::views;
using namespace pi_fusion::host;
namespace {

using lifecycle_testing::Harness;
using store::testing::kRunId;
using store::testing::StoreFixture;

TEST_CASE("ResultAnswer: the once-only usage claim is stamped by the given clock",
          "[views][result_answer]") {
  Harness h;
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  Result<TaskInfo> task = h.registry.Resolve(h.sink.launch.run_id);
  REQUIRE(task.ok());
  REQUIRE(task->state == TaskState::kCompleted);
  h.clock.Advance(std::chrono::minutes(90));  // retrieved an hour and a half later
  Result<ResultAnswer> view = BuildResultAnswer(h.fs, h.clock, *task, Delivery::kInline);
  REQUIRE(view.ok());
  CHECK(view->attach_usage.has_value());
  const nlohmann::json claim =
      nlohmann::json::parse(store::testing::ReadAll(task->artifact_dir + "/usage-claim.json"));
  CHECK(claim.at("claimed_at") == store::FormatTimestamp(h.clock.WallNow()));
  CHECK(claim.at("claimed_at").get<std::string>().rfind("2025-01-02T", 0) == 0);
}

}  // namespace
}  // namespace pi_fusion::tasks
