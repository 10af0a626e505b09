// The person's view of landed candidates while a run still works: the stderr line of print and
// json mode, the json-mode entry carrying the verified answer, and the TUI live view's rows.
#include "views/live_view.h"

#include <catch2/catch.hpp>

using namespace pi_fusion::tasks;
using namespace pi_fusion::views;
using pi_fusion::run::LandedCandidate;
using pi_fusion::run::ProgressEvent;

namespace {

constexpr int64_t kStart = 1'700'000'000'000;
constexpr char kRun[] = "reason-0123456789abcdef0123456789abcdef";

LandedReport Landed(int slot, std::string answer,
                    std::optional<int64_t> tool_calls = std::nullopt) {
  LandedCandidate c;
  c.slot = slot;
  c.model = "scripted/scripted-a";
  c.elapsed_ms = 12'400;
  c.answer = std::move(answer);
  c.artifact = "candidate-" + std::to_string(slot) + ".attempt-1.response.md";
  c.tool_calls = tool_calls;
  return {kRun, "reason", "fusion reason", c};
}

}  // namespace

TEST_CASE(
    "print and json mode: one stderr line per landed candidate with slot, model, time, bytes") {
  CHECK(LandedLine(Landed(1, std::string(1234, 'x'))) ==
        "fusion reason 01234567: candidate 1 landed · scripted/scripted-a · 0:12 · 1,234 bytes");
  CHECK(LandedLine(Landed(3, "abc", 1)) ==
        "fusion reason 01234567: candidate 3 landed · scripted/scripted-a · 0:12 · 3 bytes · "
        "1 tool call");
  CHECK(LandedFacts(Landed(2, "", 7).candidate) == "0:12 · 0 bytes · 7 tool calls");
  // A candidate a pooled process ran (policy.keep_warm_seconds) says so last.
  LandedReport warm = Landed(2, "ab", 1);
  warm.candidate.pooled = true;
  CHECK(LandedFacts(warm.candidate) == "0:12 · 2 bytes · 1 tool call · warm");
}

TEST_CASE("json mode: the entry carries the verified answer byte for byte and typed facts") {
  const std::string answer = "# Title\n\nline\x1b[2J with an escape\r\n";
  const nlohmann::json data = LandedEntryData(Landed(2, answer));
  CHECK(data["answer"] == answer);  // the verified bytes; JSON escapes keep it inert
  CHECK(data["run"] == nlohmann::json({{"id", kRun}, {"workflow", "reason"}}));
  CHECK(data["slot"] == 2);
  CHECK(data["model"] == "scripted/scripted-a");
  CHECK(data["elapsed_ms"] == 12'400);
  CHECK(data["bytes"] == answer.size());
  CHECK(data["tool_calls"].is_null());
  CHECK(data["artifact"] == "candidate-2.attempt-1.response.md");
  CHECK(LandedEntryData(Landed(2, answer, 3))["tool_calls"] == 3);
}

TEST_CASE("the live view lists a run's landed candidates in slot order under its status line") {
  TaskInfo task;
  task.id = kRun;
  task.label = "fusion reason";
  ProgressTracker t(kStart);
  t.Apply({ProgressEvent::kCandidateStarted, 1, ""}, kStart);
  t.Apply({ProgressEvent::kCandidateStarted, 3, ""}, kStart);
  t.Apply({ProgressEvent::kCandidateDone, 3, ""}, kStart + 5000);
  t.Apply({ProgressEvent::kCandidateDone, 1, ""}, kStart + 6000);
  task.progress = t.snapshot();
  const nlohmann::json view =
      LiveRunView(task, {Landed(3, "third answer"), Landed(1, "first answer", 2)}, kStart + 7000);
  CHECK(view["line"] == "fusion reason 01234567: candidates 2/3 done · 0:07");
  REQUIRE(view["candidates"].size() == 2);
  CHECK(view["candidates"][0] == nlohmann::json({{"slot", 1},
                                                 {"name", "Candidate 1"},
                                                 {"model", "scripted/scripted-a"},
                                                 {"note", "0:12 · 12 bytes · 2 tool calls"},
                                                 {"markdown", "first answer"}}));
  CHECK(view["candidates"][1]["markdown"] == "third answer");
  CHECK(LiveRunView(task, {}, kStart + 7000)["candidates"].empty());
  // What the launch notice said, for the expanded view: the full id, the folder, the estimate.
  task.artifact_dir = "/w/.pi/fusion/s-1/" + task.id;
  CHECK(LiveRunView(task, {}, kStart + 7000)["about"] ==
        nlohmann::json::array({"Run " + task.id, "Artifacts: " + task.artifact_dir}));
  task.estimate = "Estimate (expected – worst case): 1 – 2 input tokens, $0.0001 – $0.0002.";
  CHECK(LiveRunView(task, {}, kStart + 7000)["about"][2] == task.estimate);
  CHECK(LandedRow(Landed(1, "first answer").candidate) ==
        "  ✓ Candidate 1 scripted/scripted-a · 0:12 · 12 bytes");
}
