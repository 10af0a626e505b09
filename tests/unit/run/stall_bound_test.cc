// The stall bound of a stage child: the policy's stall_seconds (or the default rule) becomes the
// supervisor's idle watchdog, and a child it stops is reported as child_stalled by name.
#include <catch2/catch.hpp>

#include "config/config_constants.h"
#include "core/error_codes.h"
#include "process/supervisor.h"
#include "run/child_stage.h"
#include "test_support.h"

namespace pi_fusion::run {
namespace {

using std::chrono::milliseconds;

TEST_CASE("StallBound: the policy's stall_seconds, else the default rule of 600 s") {
  config::Policy policy;
  CHECK(StallBound(policy) == milliseconds(600000));
  policy.stall_seconds = 2;
  CHECK(StallBound(policy) == milliseconds(2000));
  policy.stall_seconds = 0.0005;  // rounded up: a bound is never zero
  CHECK(StallBound(policy) == milliseconds(1));
  policy.stall_seconds = 2.5;
  CHECK(StallBound(policy) == milliseconds(2500));
}

TEST_CASE("StallBound: the largest stall_seconds is the children's wall limit") {
  CHECK(milliseconds(static_cast<int64_t>(config::kMaxStallSeconds * 1000)) ==
        process::ChildLimits().wall);
  // The default rule is a bound of its own, well inside the wall.
  CHECK(config::kDefaultStallSeconds < config::kMaxStallSeconds);
}

TEST_CASE("BuildChildSpec: a stage child's idle watchdog is the run's stall bound") {
  store::testing::StoreFixture fixture;
  PreparedRun run;
  run.request.host.node_path = "/usr/bin/node";
  run.request.host.pi_cli_path = "/pkg/pi/cli.js";
  run.request.host.package_root = "/pkg";
  config::ModelInfo& model = run.models.routes[0].model;
  model.provider = "local";
  model.id = "m";
  model.api = "openai-completions";
  run.models.thinking_level = "off";
  run.store = std::move(fixture.store);
  StageChild child;
  child.role = Role::kCandidate;
  child.system_prompt = "Answer.";
  ChildFiles files{"/run/c.oversized.md", "", ""};

  Result<process::ChildSpec> spec = BuildChildSpec(run, child, files);
  REQUIRE(spec.ok());
  CHECK(spec->limits.idle == milliseconds(600000));
  CHECK(spec->limits.idle_before_output == kStallStartupAllowance);
  CHECK(spec->limits.wall == process::ChildLimits().wall);  // the outer bound stays
  run.policy.stall_seconds = 3;
  spec = BuildChildSpec(run, child, files);
  REQUIRE(spec.ok());
  CHECK(spec->limits.idle == milliseconds(3000));
}

TEST_CASE("StalledStatus: child_stalled naming the child, its model and the seconds") {
  config::ModelInfo model;
  model.provider = "scripted";
  model.id = "scripted-b";
  StageChild candidate;
  candidate.role = Role::kCandidate;
  candidate.key = store::AttemptKey{pi_fusion::Stage::kCandidate, 3, 1};
  const Status s = StalledStatus(candidate, model, milliseconds(600000));
  CHECK(s.code() == kChildStalled);
  CHECK(s.message() ==
        "candidate 3 (scripted/scripted-b) stalled: no output, tool call or model-stream progress "
        "for 600 s (policy.stall_seconds)");
  StageChild merger;
  merger.role = Role::kMerger;
  merger.key = store::AttemptKey{pi_fusion::Stage::kMerge, std::nullopt, 1};
  CHECK(StalledStatus(merger, model, milliseconds(2500)).message() ==
        "merger (scripted/scripted-b) stalled: no output, tool call or model-stream progress for "
        "2.5 s (policy.stall_seconds)");
  // Before its first byte the child had the start-up allowance, and the text says so.
  CHECK(StalledStatus(candidate, model, milliseconds(5000), true).message() ==
        "candidate 3 (scripted/scripted-b) stalled: no output, tool call or model-stream progress "
        "since its start, for 120 s (the start-up allowance; policy.stall_seconds is 5 s)");
  CHECK(StalledStatus(candidate, model, milliseconds(600000), true).message() ==
        "candidate 3 (scripted/scripted-b) stalled: no output, tool call or model-stream progress "
        "since its start, for 600 s (the start-up allowance; policy.stall_seconds is 600 s)");
}

}  // namespace
}  // namespace pi_fusion::run
