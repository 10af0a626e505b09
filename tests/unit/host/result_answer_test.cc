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

TEST_CASE("ResultAnswer: details.candidates lists each verified candidate answer",
          "[views][result_answer]") {
  SECTION("a completed run: every candidate, lettered by the run's map") {
    Harness h;
    h.Run();
    REQUIRE(h.sink.terminal.has_value());
    Result<TaskInfo> task = h.registry.Resolve(h.sink.launch.run_id);
    REQUIRE(task.ok());
    Result<ResultAnswer> view = BuildResultAnswer(h.fs, h.clock, *task, Delivery::kInline);
    REQUIRE(view.ok());
    const nlohmann::json manifest =
        nlohmann::json::parse(store::testing::ReadAll(task->artifact_dir + "/manifest.json"));
    const nlohmann::json& rows = view->details.at("candidates");
    REQUIRE(rows.size() == 3);
    for (int slot = 1; slot <= 3; ++slot) {
      const nlohmann::json& row = rows[slot - 1];
      const std::string name = "candidate-" + std::to_string(slot) + ".attempt-1.response.md";
      CHECK(row.at("slot") == slot);
      CHECK(manifest.at("anonymous_map").at(row.at("letter").get<std::string>()) == slot);
      CHECK(row.at("path") == task->artifact_dir + "/" + name);
      CHECK(row.at("sha256") == manifest.at("artifacts").at(name).at("sha256"));
      CHECK(row.at("byte_length") == manifest.at("artifacts").at(name).at("byte_length"));
    }
  }
  SECTION("a failed run: only the answers that still verify, without letters") {
    StoreFixture f;
    f.WalkTo(store::RunState::kCandidatesRunning);
    f.RecordCandidates();
    REQUIRE(
        f.store
            ->Fail(
                store::RunState::kFailed,
                {"child_exit_failed", "the evaluator failed", pi_fusion::Stage::kEvaluation, {}, 1})
            .terminal.ok());
    TaskInfo task;
    task.id = kRunId;
    task.workflow = "reason";
    task.state = TaskState::kFailed;
    task.artifact_dir = f.store->run_dir();
    f.store.reset();
    store::testing::WriteAll(task.artifact_dir + "/candidate-2.attempt-1.response.md", "TAMPERED");
    Result<ResultAnswer> view = BuildResultAnswer(f.fs, f.clock, task, Delivery::kInline);
    REQUIRE(view.ok());
    const nlohmann::json& rows = view->details.at("candidates");
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].at("slot") == 1);
    CHECK(rows[1].at("slot") == 3);
    CHECK(rows[0].at("letter").is_null());
    CHECK(rows[1].at("model") == "local/scripted");
  }
}

}  // namespace
}  // namespace pi_fusion::tasks
