// The timeline and cost rows read from a manifest's own records (report_timeline.h): lanes in
// slot and stage order, times since created_at, the quorum's grace window from the second answer.
#include <catch2/catch.hpp>

#include "protocol/tool_audit.h"
#include "report/report_timeline.h"
#include "store/attempt_files.h"

namespace pi_fusion::report {
namespace {

store::AttemptRecord Attempt(Stage stage, std::optional<int> slot, int attempt, std::string start,
                             std::optional<std::string> end, store::AttemptState state) {
  store::AttemptRecord a;
  a.key = {stage, slot, attempt};
  a.state = state;
  a.started_at = std::move(start);
  a.ended_at = std::move(end);
  a.usage = store::Usage{};
  a.usage->total_tokens = 100 * attempt;
  a.usage->cost.total = 0.01;
  return a;
}

TEST_CASE("timeline: lanes, times since created_at, and the grace window of a cut candidate") {
  using enum store::AttemptState;
  store::Manifest m;
  m.created_at = "2026-01-01T00:00:00.000Z";
  m.updated_at = "2026-01-01T00:00:20.000Z";
  m.attempts = {
      Attempt(Stage::kCandidate, 2, 1, "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:05.000Z",
              kCompleted),
      Attempt(Stage::kCandidate, 1, 1, "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:03.000Z",
              kCompleted),
      Attempt(Stage::kCandidate, 3, 1, "2026-01-01T00:00:01.000Z", "2026-01-01T00:00:12.000Z",
              kCancelled),
      Attempt(Stage::kMerge, std::nullopt, 1, "2026-01-01T00:00:16.000Z", std::nullopt, kRunning),
      Attempt(Stage::kEvaluation, std::nullopt, 2, "2026-01-01T00:00:14.000Z",
              "2026-01-01T00:00:15.500Z", kCompleted),
      Attempt(Stage::kEvaluation, std::nullopt, 1, "2026-01-01T00:00:12.500Z",
              "2026-01-01T00:00:14.000Z", kFailed),
  };
  m.degraded = store::DegradedRecord{3, "p/m", "cut_after_grace", std::nullopt, 7.0};
  ReportModel model;
  model.candidates.resize(3);
  model.candidates[0].calls_total = 4;
  model.candidates[0].tool_ms = 250;
  AddTimeline(m, model);

  REQUIRE(model.lanes.size() == 6);
  std::vector<std::string> labels;
  for (const TimelineLane& lane : model.lanes) labels.push_back(lane.label);
  CHECK(labels == std::vector<std::string>{"candidate 1", "candidate 2", "candidate 3", "evaluator",
                                           "repair", "merger"});
  CHECK(model.lanes[0].start_ms == 1000);
  CHECK(model.lanes[0].end_ms == 3000);
  CHECK(model.lanes[0].tool_calls == 4);
  CHECK(model.lanes[0].tool_ms == 250);
  CHECK(model.lanes[2].end_state == "cancelled");
  CHECK(model.lanes[4].end_state == "completed");
  CHECK_FALSE(model.lanes[5].end_ms);  // the merger still runs
  // The grace window opened at the second answer (candidate 2, 5 s) and lasted 7 s.
  REQUIRE(model.grace);
  CHECK(model.grace->start_ms == 5000);
  CHECK(model.grace->end_ms == 12000);
  CHECK(model.grace->cut_slot == 3);
  CHECK(model.span_ms == 20000);  // updated_at
  // Cost rows per role, the evaluation's two attempts on rows of their own.
  REQUIRE(model.costs.size() == 6);
  CHECK(model.costs[3].label == "evaluator");
  CHECK(model.costs[4].label == "repair");
  CHECK(model.costs[4].tokens == 200);
}

TEST_CASE("timeline: no grace window for a candidate that failed, or without a degraded record") {
  store::Manifest m;
  m.created_at = "2026-01-01T00:00:00.000Z";
  m.updated_at = "not a time";
  ReportModel model;
  model.candidates.resize(3);
  AddTimeline(m, model);
  CHECK(model.lanes.empty());
  CHECK_FALSE(model.grace);
  CHECK(model.span_ms == 1);
  m.degraded = store::DegradedRecord{2, "p/m", "failed", "child_exit_failed", std::nullopt};
  AddTimeline(m, model);
  CHECK_FALSE(model.grace);
}

// A journal line of a call that started at `started_at` (none: a record written before the field).
std::string CallLine(int64_t ordinal, std::optional<std::string> started_at, int64_t duration_ms,
                     const std::string& status = "ok") {
  protocol::ToolCallRecord r;
  r.ordinal = ordinal;
  r.tool_name = "read";
  r.arguments_sha256 = "sha256:" + std::string(64, 'a');
  r.result_sha256 = "sha256:" + std::string(64, 'b');
  r.status = status;
  r.duration_ms = duration_ms;
  r.started_at = std::move(started_at);
  return protocol::EncodeJournalLine(r);
}

TEST_CASE("timeline: first output, each tool call from its start, and the process exit") {
  using enum store::AttemptState;
  store::Manifest m;
  m.created_at = "2026-01-01T00:00:00.000Z";
  m.updated_at = "2026-01-01T00:00:10.000Z";
  store::AttemptRecord c1 = Attempt(Stage::kCandidate, 1, 1, "2026-01-01T00:00:01.000Z",
                                    "2026-01-01T00:00:06.000Z", kCompleted);
  c1.first_output_at = "2026-01-01T00:00:02.250Z";
  // The stage moved on at the answer; the process exited after the run's last update.
  c1.exit = store::ChildExitRecord{0, std::nullopt, "none", true, "2026-01-01T00:00:12.000Z"};
  store::AttemptRecord c2 = Attempt(Stage::kCandidate, 2, 1, "2026-01-01T00:00:01.000Z",
                                    "2026-01-01T00:00:04.000Z", kFailed);
  c2.exit = store::ChildExitRecord{std::nullopt, 9, "wall_limit", false, std::nullopt};
  m.attempts = {c1, c2};
  VerifiedBytes verified;
  // Finished out of order (a batch runs concurrently); one refused; one from an older journal.
  verified[store::AttemptFileName(c1.key, store::AttemptFile::kToolCalls)] =
      CallLine(1, "2026-01-01T00:00:03.500Z", 40) +
      CallLine(2, "2026-01-01T00:00:03.000Z", 900, "error") + CallLine(3, std::nullopt, 5) +
      "not a record\n";
  ReportModel model;
  model.candidates.resize(3);
  AddTimeline(m, model, verified);

  REQUIRE(model.lanes.size() == 2);
  const TimelineLane& lane = model.lanes[0];
  CHECK(lane.first_output_ms == 2250);
  CHECK(lane.exit_ms == 12000);
  CHECK(lane.exit_note == "exit code 0");
  CHECK(lane.calls == std::vector<TimelineCall>{{3500, 40, false}, {3000, 900, true}});
  CHECK(model.span_ms == 12000);  // the exit is drawn too
  // Recorded before the fields: no first output, no exit time, no calls; the note still says how.
  CHECK_FALSE(model.lanes[1].first_output_ms);
  CHECK_FALSE(model.lanes[1].exit_ms);
  CHECK(model.lanes[1].exit_note == "signal 9 (stopped: wall_limit)");
  CHECK(model.lanes[1].calls.empty());
}

TEST_CASE("timeline: a journal that did not verify draws no calls") {
  store::Manifest m;
  m.created_at = "2026-01-01T00:00:00.000Z";
  m.updated_at = "2026-01-01T00:00:10.000Z";
  m.attempts = {Attempt(Stage::kCandidate, 1, 1, "2026-01-01T00:00:01.000Z", std::nullopt,
                        store::AttemptState::kRunning)};
  ReportModel model;
  model.candidates.resize(3);
  AddTimeline(m, model, {});
  REQUIRE(model.lanes.size() == 1);
  CHECK(model.lanes[0].calls.empty());
  CHECK(TimelineCallsOf(CallLine(1, "2026-01-01T00:00:01.000Z", 7), 0) ==
        std::vector<TimelineCall>{{1767225601000, 7, false}});
}

}  // namespace
}  // namespace pi_fusion::report
