// ProgressTracker: per-run progress from the orchestrator's updates; a failure is never counted
// as complete; terminal states are final; elapsed time; the fusion-progress.v1 snapshot.
#include "tasks/progress.h"

#include <catch2/catch.hpp>

using namespace pi_fusion::tasks;
using pi_fusion::run::ProgressEvent;
using pi_fusion::run::ProgressUpdate;

namespace {

constexpr int64_t kStart = 1'700'000'000'000;
constexpr char kRun[] = "reason-0123456789abcdef0123456789abcdef";

ProgressTracker Started() {
  ProgressTracker t(kStart);
  t.Apply({ProgressEvent::kCandidatesRunning, 0, "candidates running"}, kStart + 10);
  for (int slot = 1; slot <= 3; ++slot) {
    t.Apply({ProgressEvent::kCandidateStarted, slot, "candidate starting"}, kStart + 20);
  }
  return t;
}

}  // namespace

TEST_CASE("a failed candidate is counted as failed, never as complete") {
  ProgressTracker t = Started();
  t.Apply({ProgressEvent::kCandidateDone, 2, "candidates 1/3 complete"}, kStart + 1000);
  t.Apply({ProgressEvent::kCandidateFailed, 1, "candidate 1 failed (child_timeout)"},
          kStart + 2000);
  const ProgressSnapshot& s = t.snapshot();
  CHECK(s.CandidatesIn(SlotState::kDone) == 1);
  CHECK(s.CandidatesIn(SlotState::kFailed) == 1);
  CHECK(s.CandidatesIn(SlotState::kRunning) == 1);
  CHECK(StageSummary(s) == "candidates 1/3 done, 1 failed");
  const nlohmann::json j = ProgressJson(s, kRun, "reason", kStart + 42'000);
  CHECK(j["schema_version"] == "pi-background-tasks.fusion-progress.v1");
  CHECK(j["run_id"] == kRun);
  CHECK(j["stage"] == "candidates");
  CHECK(j["candidates"] == nlohmann::json{{"total", 3},
                                          {"done", 1},
                                          {"failed", 1},
                                          {"running", 1},
                                          {"slots", {"failed", "done", "running"}}});
  CHECK(j["evaluator"] == "pending");
  CHECK(j["elapsed_ms"] == 42'000);
  CHECK(j["line"] == "candidate 1 failed (child_timeout)");
}

TEST_CASE("stages advance to completion; the elapsed time stops at the end") {
  ProgressTracker t = Started();
  for (int slot = 1; slot <= 3; ++slot) {
    t.Apply({ProgressEvent::kCandidateDone, slot, "candidates n/3 complete"}, kStart + 5000);
  }
  CHECK(StageSummary(t.snapshot()) == "candidates 3/3 done");
  t.Apply({ProgressEvent::kEvaluating, 0, "evaluating candidates"}, kStart + 6000);
  CHECK(t.snapshot().evaluator == SlotState::kRunning);
  CHECK(StageSummary(t.snapshot()) == "evaluating candidates");
  t.Apply({ProgressEvent::kRepairing, 0, "repairing evaluator JSON"}, kStart + 7000);
  CHECK(t.snapshot().stage == Stage::kRepair);
  t.Apply({ProgressEvent::kMerging, 0, "merging final answer"}, kStart + 8000);
  CHECK(t.snapshot().evaluator == SlotState::kDone);
  CHECK(t.snapshot().merger == SlotState::kRunning);
  t.Apply({ProgressEvent::kCompleted, 0, "completed"}, kStart + 64'000);
  CHECK(t.snapshot().merger == SlotState::kDone);
  CHECK_FALSE(t.snapshot().Active());
  CHECK(t.snapshot().ElapsedMs(kStart + 999'000) == 64'000);
  CHECK(StatusLine(t.snapshot(), "fusion reason", kRun, kStart + 999'000) ==
        "fusion reason 01234567: completed · 1:04");
}

TEST_CASE("terminal states are final and settle what was still running") {
  ProgressTracker t = Started();
  t.Apply({ProgressEvent::kCandidateDone, 3, "candidates 1/3 complete"}, kStart + 1000);
  t.Apply({ProgressEvent::kCancelled, 0, "cancelled (bg_kill)"}, kStart + 2000);
  const ProgressSnapshot s = t.snapshot();
  CHECK(s.stage == Stage::kCancelled);
  CHECK(s.candidates[0] == SlotState::kCancelled);
  CHECK(s.candidates[2] == SlotState::kDone);
  CHECK(s.evaluator == SlotState::kSkipped);
  CHECK(s.merger == SlotState::kSkipped);
  // A late update (a candidate thread finishing after the cancel) changes nothing.
  t.Apply({ProgressEvent::kCandidateDone, 1, "candidates 2/3 complete"}, kStart + 3000);
  t.Apply({ProgressEvent::kCompleted, 0, "completed"}, kStart + 3000);
  CHECK(t.snapshot().candidates == s.candidates);
  CHECK(t.snapshot().stage == Stage::kCancelled);
  CHECK(t.snapshot().line == "cancelled (bg_kill)");

  ProgressTracker failed = Started();
  failed.Apply({ProgressEvent::kFailed, 0, "failed (child_timeout)"}, kStart + 2000);
  CHECK(failed.snapshot().candidates[1] == SlotState::kFailed);
}

TEST_CASE("warnings are kept and change no stage") {
  ProgressTracker t(kStart);
  t.Apply({ProgressEvent::kNote, 0, "budget warning (2 stages at or above 80%)"}, kStart);
  CHECK(t.snapshot().stage == Stage::kPreflight);
  CHECK(t.snapshot().warnings ==
        std::vector<std::string>{"budget warning (2 stages at or above 80%)"});
}

TEST_CASE("elapsed time reads like a clock") {
  CHECK(FormatElapsed(0) == "0:00");
  CHECK(FormatElapsed(7'999) == "0:07");
  CHECK(FormatElapsed(64'000) == "1:04");
  CHECK(FormatElapsed(3'723'000) == "1:02:03");
  CHECK(FormatElapsed(-5) == "0:00");
}

TEST_CASE("every stage has its contract name and the summary a person reads") {
  struct Row {
    Stage stage;
    const char* name;
    const char* summary;
  };
  const Row rows[] = {
      {Stage::kPreflight, "preflight", "preflight"},
      {Stage::kCandidates, "candidates", "candidates 0/3 done"},
      {Stage::kEvaluation, "evaluation", "evaluating candidates"},
      {Stage::kRepair, "repair", "repairing the evaluation"},
      {Stage::kMerge, "merge", "merging the final answer"},
      {Stage::kCompleted, "completed", "completed"},
      {Stage::kFailed, "failed", "failed"},
      {Stage::kCancelled, "cancelled", "cancelled"},
  };
  for (const Row& row : rows) {
    ProgressSnapshot s;
    s.stage = row.stage;
    CHECK(StageName(row.stage) == row.name);
    CHECK(StageSummary(s) == row.summary);
  }
}

// Signs of life: each running child's time since its last output (and tool calls so far).

namespace {

pi_fusion::run::ChildActivity Life(pi_fusion::Stage stage, std::optional<int> slot,
                                   int64_t last_output_ms,
                                   std::optional<int64_t> tool_calls = std::nullopt,
                                   int64_t tools_running = 0) {
  pi_fusion::run::ChildActivity a;
  a.stage = stage;
  a.slot = slot;
  a.last_output_ms = last_output_ms;
  a.tool_calls = tool_calls;
  a.tools_running = tools_running;
  return a;
}

}  // namespace

TEST_CASE("time since output reads in seconds, then minutes, then hours") {
  CHECK(FormatSince(0) == "0s");
  CHECK(FormatSince(999) == "0s");
  CHECK(FormatSince(41'000) == "41s");
  CHECK(FormatSince(59'999) == "59s");
  CHECK(FormatSince(60'000) == "1m 00s");
  CHECK(FormatSince(125'000) == "2m 05s");
  CHECK(FormatSince(3'599'000) == "59m 59s");
  CHECK(FormatSince(3'720'000) == "1h 02m");
  CHECK(FormatSince(-5'000) == "0s");  // a wall clock that stepped back
}

TEST_CASE("the status line shows each running candidate's time since its last output") {
  using pi_fusion::Stage;
  ProgressTracker t = Started();
  t.Apply({ProgressEvent::kCandidateDone, 1, "candidates 1/3 complete"}, kStart + 5000);
  t.Note(Life(Stage::kCandidate, 1, kStart + 4000));
  t.Note(Life(Stage::kCandidate, 2, kStart + 39'000, 4));
  t.Note(Life(Stage::kCandidate, 3, kStart + 1000, 1));
  const int64_t now = kStart + 42'000;
  // Candidate 1 has landed: only the running ones are listed, in slot order.
  CHECK(ActivitySummary(t.snapshot(), now) ==
        "last output: candidate 2 3s ago (4 tool calls), candidate 3 41s ago (1 tool call)");
  CHECK(StatusLine(t.snapshot(), "fusion reason", kRun, now) ==
        "fusion reason 01234567: candidates 1/3 done · 0:42 · last output: candidate 2 3s ago "
        "(4 tool calls), candidate 3 41s ago (1 tool call)");
  const nlohmann::json j = ProgressJson(t.snapshot(), kRun, "reason", now);
  REQUIRE(j["activity"].size() == 2);
  CHECK(j["activity"][0] == nlohmann::json({{"role", "candidate"},
                                            {"slot", 2},
                                            {"since_output_ms", 3000},
                                            {"tool_calls", 4},
                                            {"tools_running", 0}}));
  CHECK(j["activity"][1]["since_output_ms"] == 41'000);
}

TEST_CASE("a candidate a pooled process runs is named warm") {
  using pi_fusion::Stage;
  ProgressTracker t = Started();
  pi_fusion::run::ChildActivity warm = Life(Stage::kCandidate, 1, kStart + 1000);
  warm.pooled = true;
  t.Note(warm);
  t.Note(Life(Stage::kCandidate, 2, kStart + 1000));
  CHECK(ActivitySummary(t.snapshot(), kStart + 5000) ==
        "last output: candidate 1 (warm) 4s ago, candidate 2 4s ago");
  CHECK(t.snapshot().candidate_life[0].pooled);
  CHECK_FALSE(t.snapshot().candidate_life[1].pooled);
}

TEST_CASE("a tool call in flight counts as a call, named as running") {
  using pi_fusion::Stage;
  ProgressTracker t = Started();
  t.Note(Life(Stage::kCandidate, 1, kStart + 1000, 0, 1));  // its first call: a slow fetch
  t.Note(Life(Stage::kCandidate, 2, kStart + 1000, 3, 2));
  CHECK(ActivitySummary(t.snapshot(), kStart + 5000) ==
        "last output: candidate 1 4s ago (1 tool call, 1 running), candidate 2 4s ago (5 tool "
        "calls, 2 running)");
  const nlohmann::json j = ProgressJson(t.snapshot(), kRun, "reason", kStart + 5000);
  CHECK(j["activity"][0]["tool_calls"] == 1);
  CHECK(j["activity"][0]["tools_running"] == 1);
  CHECK(j["activity"][1]["tool_calls"] == 5);
  t.Note(Life(Stage::kCandidate, 1, kStart + 6000, 1, 0));  // it ended
  CHECK(ChildLifeText(t.snapshot().candidate_life[0], kStart + 6000) ==
        "last output 0s ago (1 tool call)");
}

TEST_CASE("a child that has not reported adds nothing; the evaluator and merger report too") {
  using pi_fusion::Stage;
  ProgressTracker t = Started();
  CHECK(ActivitySummary(t.snapshot(), kStart + 1000).empty());
  CHECK(StatusLine(t.snapshot(), "fusion reason", kRun, kStart + 1000) ==
        "fusion reason 01234567: candidates 0/3 done · 0:01");
  CHECK(ProgressJson(t.snapshot(), kRun, "reason", kStart + 1000)["activity"].empty());
  for (int slot = 1; slot <= 3; ++slot) {
    t.Apply({ProgressEvent::kCandidateDone, slot, "done"}, kStart + 2000);
  }
  t.Apply({ProgressEvent::kEvaluating, 0, "evaluating candidates"}, kStart + 2000);
  t.Note(Life(Stage::kEvaluation, std::nullopt, kStart + 2500));
  CHECK(ActivitySummary(t.snapshot(), kStart + 9500) == "last output: evaluator 7s ago");
  const nlohmann::json j = ProgressJson(t.snapshot(), kRun, "reason", kStart + 9500);
  CHECK(j["activity"][0] == nlohmann::json({{"role", "evaluator"},
                                            {"slot", nullptr},
                                            {"since_output_ms", 7000},
                                            {"tool_calls", nullptr},
                                            {"tools_running", nullptr}}));
  t.Apply({ProgressEvent::kMerging, 0, "merging final answer"}, kStart + 10'000);
  t.Note(Life(Stage::kMerge, std::nullopt, kStart + 10'000));
  CHECK(ActivitySummary(t.snapshot(), kStart + 75'000) == "last output: merger 1m 05s ago");
  t.Apply({ProgressEvent::kCompleted, 0, "completed"}, kStart + 80'000);
  t.Note(Life(Stage::kMerge, std::nullopt, kStart + 80'000));  // after the end: ignored
  CHECK(ActivitySummary(t.snapshot(), kStart + 90'000).empty());
  CHECK(t.snapshot().merger_life.last_output_ms == kStart + 10'000);
}

TEST_CASE("print mode's line: the status line's words and time, then the event when it adds") {
  ProgressTracker t = Started();
  const ProgressUpdate failed{ProgressEvent::kCandidateFailed, 3,
                              "candidate 3 failed (child_timeout)"};
  t.Apply(failed, kStart + 14'000);
  CHECK(PlainProgressLine(t.snapshot(), "fusion reason", kRun, kStart + 14'000, failed) ==
        "fusion reason 01234567: candidates 0/3 done, 1 failed · 0:14 · candidate 3 failed "
        "(child_timeout)");
  const ProgressUpdate done{ProgressEvent::kCandidateDone, 1, "candidates 1/3 complete"};
  t.Apply(done, kStart + 15'000);
  CHECK(PlainProgressLine(t.snapshot(), "fusion reason", kRun, kStart + 15'000, done) ==
        "fusion reason 01234567: candidates 1/3 done, 1 failed · 0:15");
  const ProgressUpdate merging{ProgressEvent::kMerging, 0, "merging final answer"};
  t.Apply(merging, kStart + 21'000);
  CHECK(PlainProgressLine(t.snapshot(), "fusion reason", kRun, kStart + 21'000, merging) ==
        "fusion reason 01234567: merging the final answer · 0:21");
}

TEST_CASE("the grace window counts down in the status line while the candidates wait") {
  ProgressTracker t = Started();
  t.Apply({ProgressEvent::kCandidateDone, 1, "candidates 1/3 complete"}, kStart + 5'000);
  t.Apply({ProgressEvent::kCandidateDone, 2, "candidates 2/3 complete"}, kStart + 6'000);
  CHECK(GraceCountdown(t.snapshot(), kStart + 6'000).empty());
  t.Apply({ProgressEvent::kNote, 0, "2/3 candidates verified; waiting up to 15 s for the third",
           15'000},
          kStart + 6'000);
  CHECK(StatusLine(t.snapshot(), "fusion reason", kRun, kStart + 9'500) ==
        "fusion reason 01234567: candidates 2/3 done · 0:09 · grace 12s left");
  CHECK(GraceCountdown(t.snapshot(), kStart + 20'999) == "grace 1s left");
  CHECK(GraceCountdown(t.snapshot(), kStart + 21'000).empty());
  t.Apply({ProgressEvent::kEvaluating, 0, "evaluating candidates"}, kStart + 22'000);
  CHECK(GraceCountdown(t.snapshot(), kStart + 10'000).empty());
}
