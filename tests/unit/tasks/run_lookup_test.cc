// The lookup of a run a tool names (tasks/run_lookup.h): this process's runs, this session's
// earlier ones, then the project's run store, whose abandoned runs are finalized at the given
// clock's time.
#include "tasks/run_lookup.h"

#include <catch2/catch.hpp>

#include "store/verify.h"
#include "store/wall_clock.h"
#include "test_support.h"

namespace pi_fusion::tasks {
namespace {

using store::testing::kRunId;
using store::testing::StoreFixture;

TEST_CASE("FindRunOnDisk: a run whose owner is gone is finalized at the clock's time",
          "[tasks][run_lookup]") {
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
          "[tasks][run_lookup]") {
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
