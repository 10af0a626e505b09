// WatchStageChild (src/run/stage_watch.h): a stage child's start and output become signs of life
// for the person, with a tool-using child's tool calls counted from its journal so far.
#include "run/stage_watch.h"

#include <mutex>
#include <vector>

#include <catch2/catch.hpp>

#include "protocol/frames.h"
#include "protocol/stderr_scan.h"
#include "test_support.h"

using namespace pi_fusion;
using namespace std::chrono_literals;

namespace {

struct RecordingObserver : run::RunObserver {
  void Progress(const run::ProgressUpdate&) override {}
  void Activity(const run::ChildActivity& activity) override {
    std::lock_guard lock(mu);
    seen.push_back(activity);
  }
  std::mutex mu;
  std::vector<run::ChildActivity> seen;
};

int64_t WallMs(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.WallNow().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("a child's output is reported with the time it arrived") {
  RecordingObserver observer;
  store::testing::FixedClock clock;
  process::ProgressCallback watch = run::WatchStageChild(observer, clock, PosixFileSystem(),
                                                         {pi_fusion::Stage::kCandidate, 2, 1}, "");
  watch({process::ChildProgress::Event::kSpawned, 7, 0, 0, 0ms});
  const int64_t spawned = WallMs(clock);
  clock.Advance(4000ms);
  watch({process::ChildProgress::Event::kOutput, 7, 0, 120, 4000ms});
  REQUIRE(observer.seen.size() == 2);
  CHECK(observer.seen[0].stage == pi_fusion::Stage::kCandidate);
  CHECK(observer.seen[0].slot == 2);
  CHECK(observer.seen[0].last_output_ms == spawned);
  CHECK(observer.seen[1].last_output_ms == spawned + 4000);
  CHECK_FALSE(observer.seen[1].tool_calls.has_value());  // no tools: no count
}

TEST_CASE("a tool-using child reports the calls its journal holds so far") {
  store::testing::TempDir dir;
  const std::string journal = dir.path() + "/candidate-1.attempt-1.tool-calls.jsonl";
  RecordingObserver observer;
  store::testing::FixedClock clock;
  process::ProgressCallback watch = run::WatchStageChild(
      observer, clock, PosixFileSystem(), {pi_fusion::Stage::kCandidate, 1, 1}, journal);
  watch({process::ChildProgress::Event::kSpawned, 7, 0, 0, 0ms});  // no journal yet
  store::testing::WriteAll(journal, "{\"ordinal\":1}\n{\"ordinal\":2}\n{\"ord");
  watch({process::ChildProgress::Event::kOutput, 7, 0, 50, 1000ms});
  REQUIRE(observer.seen.size() == 2);
  CHECK(observer.seen[0].tool_calls == 0);
  CHECK(observer.seen[1].tool_calls == 2);  // the record still being written is not counted
  CHECK(run::CountJournalLines(PosixFileSystem(), dir.path() + "/absent.jsonl") == 0);
}

TEST_CASE("a call in flight is reported from the child's last whole progress frame") {
  store::testing::TempDir dir;
  const std::string journal = dir.path() + "/candidate-1.attempt-1.tool-calls.jsonl";
  RecordingObserver observer;
  store::testing::FixedClock clock;
  process::ProgressCallback watch = run::WatchStageChild(
      observer, clock, PosixFileSystem(), {pi_fusion::Stage::kCandidate, 1, 1}, journal);
  auto frame = [](int64_t running) {
    return protocol::EncodeFrameLine(protocol::ToJson(protocol::ProgressFrame{"tool", running}));
  };
  const std::string started = "Pi says hello\n" + frame(0) + frame(1);
  watch({process::ChildProgress::Event::kOutput, 7, 0, started.size(), 1000ms, started});
  // A frame cut off at the end of what was read so far does not count yet.
  const std::string cut = started + frame(0).substr(0, 20);
  watch({process::ChildProgress::Event::kOutput, 7, 0, cut.size(), 1500ms, cut});
  store::testing::WriteAll(journal, "{\"ordinal\":1}\n");
  const std::string ended = started + frame(0);
  watch({process::ChildProgress::Event::kOutput, 7, 0, ended.size(), 2000ms, ended});
  REQUIRE(observer.seen.size() == 3);
  CHECK(observer.seen[0].tool_calls == 0);
  CHECK(observer.seen[0].tools_running == 1);
  CHECK(observer.seen[1].tools_running == 1);
  CHECK(observer.seen[2].tool_calls == 1);
  CHECK(observer.seen[2].tools_running == 0);
  CHECK(protocol::LastToolsRunning("no frames\n") == std::nullopt);
  CHECK(protocol::LastToolsRunning("\n") == std::nullopt);
  CHECK(protocol::LastToolsRunning("") == std::nullopt);
}
