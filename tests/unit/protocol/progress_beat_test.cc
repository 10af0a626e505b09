// The child's progress frames: rate-limited signs of life, none after the settlement.
#include <catch2/catch.hpp>

#include "child/core/progress_beat.h"
#include "protocol/constants.h"
#include "protocol/stderr_scan.h"
#include "test_streams.h"

namespace pi_fusion::child {
namespace {

std::vector<std::string> Sources(const std::string& stderr_bytes) {
  const protocol::StderrScan scan = protocol::ScanStderr(stderr_bytes);
  REQUIRE(scan.error.ok());
  std::vector<std::string> out;
  for (const auto& frame : scan.frames) {
    REQUIRE(frame.schema == protocol::kProgressSchema);
    REQUIRE(protocol::ParseProgress(frame.body).ok());
    out.push_back(frame.body["source"]);
  }
  return out;
}

TEST_CASE("ProgressBeat: the first event writes at once, then at most one frame per interval") {
  testing::MemoryChildEnv env;
  ProgressBeat beat(&env);
  beat.Beat(ProgressBeat::kModelStream, false, 0);
  CHECK(Sources(env.stderr_bytes) == std::vector<std::string>{"model_stream"});
  // A burst of deltas inside the interval writes nothing more.
  for (int i = 0; i < 50; ++i) {
    env.now_ms += 10;
    beat.Beat(ProgressBeat::kModelStream, false, 0);
  }
  CHECK(beat.frames() == 1);
  env.now_ms = 1000 + protocol::kProgressFrameIntervalMs - 1;
  beat.Beat(ProgressBeat::kTool, false, 0);
  CHECK(beat.frames() == 1);
  env.now_ms = 1000 + protocol::kProgressFrameIntervalMs;
  beat.Beat(ProgressBeat::kTool, false, 0);
  CHECK(Sources(env.stderr_bytes) == std::vector<std::string>{"model_stream", "tool"});
}

// The running count of each frame written.
std::vector<int64_t> Running(const std::string& stderr_bytes) {
  std::vector<int64_t> out;
  for (const auto& frame : protocol::ScanStderr(stderr_bytes).frames) {
    out.push_back(protocol::ParseProgress(frame.body)->tools_running);
  }
  return out;
}

TEST_CASE("ProgressBeat: a change of the running tool calls is written at once") {
  testing::MemoryChildEnv env;
  ProgressBeat beat(&env);
  beat.Beat(ProgressBeat::kModelStream, false, 0);
  env.now_ms += 10;
  beat.Beat(ProgressBeat::kTool, false, 1);  // a fetch starts just after a delta
  env.now_ms += 10;
  beat.Beat(ProgressBeat::kTool, false, 1);  // its updates: inside the interval, no change
  env.now_ms += 10;
  beat.Beat(ProgressBeat::kTool, false, 0);  // it ends
  CHECK(Running(env.stderr_bytes) == std::vector<int64_t>{0, 1, 0});
  // A count that could not be written is offered again by the next event.
  env.fail_frames = true;
  beat.Beat(ProgressBeat::kTool, false, 1);
  env.fail_frames = false;
  env.now_ms += 10;
  beat.Beat(ProgressBeat::kTool, false, 1);
  CHECK(Running(env.stderr_bytes) == std::vector<int64_t>{0, 1, 0, 1});
}

TEST_CASE("ProgressBeat: nothing is written once the child has settled") {
  testing::MemoryChildEnv env;
  ProgressBeat beat(&env);
  beat.Beat(ProgressBeat::kModelStream, true, 0);
  env.now_ms += 60000;
  beat.Beat(ProgressBeat::kTool, true, 1);
  CHECK(env.stderr_bytes.empty());
  CHECK(beat.frames() == 0);
}

TEST_CASE("ProgressBeat: a frame that cannot be written is dropped, the next one still comes") {
  testing::MemoryChildEnv env;
  ProgressBeat beat(&env);
  env.fail_frames = true;
  beat.Beat(ProgressBeat::kModelStream, false, 0);
  CHECK(beat.frames() == 0);
  env.fail_frames = false;
  env.now_ms += protocol::kProgressFrameIntervalMs;
  beat.Beat(ProgressBeat::kModelStream, false, 0);
  CHECK(beat.frames() == 1);
}

}  // namespace
}  // namespace pi_fusion::child
