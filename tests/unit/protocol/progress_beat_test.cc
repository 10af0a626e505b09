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
  beat.Beat(ProgressBeat::kModelStream, false);
  CHECK(Sources(env.stderr_bytes) == std::vector<std::string>{"model_stream"});
  // A burst of deltas inside the interval writes nothing more.
  for (int i = 0; i < 50; ++i) {
    env.now_ms += 10;
    beat.Beat(ProgressBeat::kModelStream, false);
  }
  CHECK(beat.frames() == 1);
  env.now_ms = 1000 + protocol::kProgressFrameIntervalMs - 1;
  beat.Beat(ProgressBeat::kTool, false);
  CHECK(beat.frames() == 1);
  env.now_ms = 1000 + protocol::kProgressFrameIntervalMs;
  beat.Beat(ProgressBeat::kTool, false);
  CHECK(Sources(env.stderr_bytes) == std::vector<std::string>{"model_stream", "tool"});
}

TEST_CASE("ProgressBeat: nothing is written once the child has settled") {
  testing::MemoryChildEnv env;
  ProgressBeat beat(&env);
  beat.Beat(ProgressBeat::kModelStream, true);
  env.now_ms += 60000;
  beat.Beat(ProgressBeat::kTool, true);
  CHECK(env.stderr_bytes.empty());
  CHECK(beat.frames() == 0);
}

TEST_CASE("ProgressBeat: a frame that cannot be written is dropped, the next one still comes") {
  testing::MemoryChildEnv env;
  ProgressBeat beat(&env);
  env.fail_frames = true;
  beat.Beat(ProgressBeat::kModelStream, false);
  CHECK(beat.frames() == 0);
  env.fail_frames = false;
  env.now_ms += protocol::kProgressFrameIntervalMs;
  beat.Beat(ProgressBeat::kModelStream, false);
  CHECK(beat.frames() == 1);
}

}  // namespace
}  // namespace pi_fusion::child
