// What the person sees of the active runs (views/progress_view.h): the live view, the plain
// widget's rows and the per-run status entries, all from the registry's tasks and the candidates
// that landed, without Node.
#include "views/progress_view.h"

#include <catch2/catch.hpp>

#include "views/host_texts.h"
#include "views/run_view.h"

using namespace pi_fusion::tasks;
using namespace pi_fusion::views;
using pi_fusion::run::LandedCandidate;
using pi_fusion::run::ProgressEvent;

namespace {

constexpr int64_t kStart = 1'700'000'000'000;
constexpr char kRunA[] = "reason-0123456789abcdef0123456789abcdef";
constexpr char kRunB[] = "reason-fedcba9876543210fedcba9876543210";
constexpr char kRunC[] = "reason-00000000000000000000000000000000";

TaskInfo Task(std::string id, TaskState state, std::string label = "fusion reason") {
  TaskInfo task;
  task.id = std::move(id);
  task.label = std::move(label);
  task.state = state;
  ProgressTracker t(kStart);
  t.Apply({ProgressEvent::kCandidateStarted, 1, ""}, kStart);
  task.progress = t.snapshot();
  return task;
}

LandedReport Landed(std::string run, int slot, std::string model = "scripted/scripted-a") {
  LandedCandidate c;
  c.slot = slot;
  c.model = std::move(model);
  c.elapsed_ms = 12'400;
  c.answer = "answer " + std::to_string(slot);
  return {std::move(run), "reason", "fusion reason", c};
}

}  // namespace

TEST_CASE("progress view: one line per running task in registry order, ended runs left out") {
  const ProgressView view =
      BuildProgressView({Task(kRunA, TaskState::kRunning), Task(kRunB, TaskState::kCompleted),
                         Task(kRunC, TaskState::kRunning)},
                        {}, kStart + 7000);
  REQUIRE(view.runs.size() == 2);
  CHECK(view.runs[0].status_key == std::string("pi-fusion:") + kRunA);
  CHECK(view.runs[0].line == "fusion reason 01234567: candidates 0/3 done · 0:07");
  CHECK(view.runs[1].status_key == std::string("pi-fusion:") + kRunC);
  CHECK(view.live_runs.size() == 2);
  CHECK(view.live_runs[0]["line"] == view.runs[0].line);
  CHECK(view.live_runs[0]["candidates"].empty());
}

TEST_CASE("progress view: landed candidates stay with their running run, an ended run's go") {
  LandedByRun landed;
  landed[kRunA] = {Landed(kRunA, 2), Landed(kRunA, 1)};
  landed[kRunB] = {Landed(kRunB, 1)};
  const ProgressView view =
      BuildProgressView({Task(kRunA, TaskState::kRunning), Task(kRunB, TaskState::kFailed),
                         Task(kRunC, TaskState::kRunning)},
                        std::move(landed), kStart + 7000);
  CHECK(view.landed.size() == 2);  // one entry per running run, empty where none landed
  CHECK(view.landed.at(kRunA).size() == 2);
  CHECK(view.landed.at(kRunC).empty());
  CHECK(view.landed.count(kRunB) == 0);
  // The plain rows keep landing order; the live view lists slots in order.
  CHECK(view.runs[0].landed_rows ==
        std::vector<std::string>{"  ✓ Candidate 2 scripted/scripted-a · 0:12 · 8 bytes",
                                 "  ✓ Candidate 1 scripted/scripted-a · 0:12 · 8 bytes"});
  REQUIRE(view.live_runs[0]["candidates"].size() == 2);
  CHECK(view.live_runs[0]["candidates"][0]["slot"] == 1);
  CHECK(view.live_runs[0]["candidates"][0]["markdown"] == "answer 1");
}

TEST_CASE("progress view: a label or model with terminal controls is shown as one inert line") {
  LandedByRun landed;
  landed[kRunA] = {Landed(kRunA, 1, "evil\x1b[2J\nmodel")};
  const ProgressView view = BuildProgressView(
      {Task(kRunA, TaskState::kRunning, "fusion\x1b]8;;x\x07 reason")}, std::move(landed), kStart);
  const std::string& line = view.runs[0].line;
  CHECK(line.find('\x1b') == std::string::npos);
  CHECK(line.find("␛") != std::string::npos);
  CHECK(view.live_runs[0]["line"] == line);
  const nlohmann::json& candidate = view.live_runs[0]["candidates"][0];
  CHECK(candidate["model"] == "evil␛[2J␊model");
  CHECK(view.runs[0].landed_rows[0].find("evil␛[2J␊model") != std::string::npos);
  // The answer expanded in the live view is the verified Markdown, left as it is.
  CHECK(candidate["markdown"] == "answer 1");
}

TEST_CASE("plain widget rows: each run's line and landed rows, then the hint; none: cleared") {
  LandedByRun landed;
  landed[kRunC] = {Landed(kRunC, 3)};
  const ProgressView view =
      BuildProgressView({Task(kRunA, TaskState::kRunning), Task(kRunC, TaskState::kRunning)},
                        std::move(landed), kStart + 7000);
  CHECK(PlainWidgetRows(view) == std::vector<std::string>{view.runs[0].line, view.runs[1].line,
                                                          view.runs[1].landed_rows[0],
                                                          kActiveRunsHint});
  CHECK(PlainWidgetRows(BuildProgressView({Task(kRunB, TaskState::kKilled)}, {}, kStart)).empty());
}

TEST_CASE("live widget view: the render module's shape with the hints") {
  const ProgressView view = BuildProgressView({Task(kRunA, TaskState::kRunning)}, {}, kStart);
  CHECK(LiveWidgetView(view) == nlohmann::json({{"kind", "live"},
                                                {"runs", view.live_runs},
                                                {"hint", kActiveRunsHint},
                                                {"expand", kExpandHintText}}));
}
