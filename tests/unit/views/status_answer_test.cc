// bg_status's view and the task lookup bg_status and bg_result share: live tasks of this process
// come first in lookups, earlier runs (read from disk) fill in, and no run is listed twice.
#include "views/status_answer.h"

#include <catch2/catch.hpp>

#include "tasks/run_lookup.h"
#include "tasks/session_runs.h"

using namespace pi_fusion;
using namespace pi_fusion::tasks;
using namespace pi_fusion::views;

namespace {

const std::string kLive = "reason-0123456789abcdef0123456789abcdef";
const std::string kEarlier = "reason-4567ffffffffffffffffffffffffffff";
constexpr int64_t kStart = 1'700'000'000'000;

TaskInfo Task(const std::string& id, TaskState state) {
  TaskInfo t{id, "reason", "fusion reason", "d", "tool", "/w/" + id};
  t.state = state;
  t.progress.started_ms = kStart;
  return t;
}

void AddLive(TaskRegistry& registry) {
  registry.Add(Task(kLive, TaskState::kRunning), *process::CancelToken::Create());
}

}  // namespace

TEST_CASE("StatusAnswer: no tasks says so with an empty list") {
  TaskRegistry live;
  const StatusAnswer view = BuildStatusAnswer(live, {}, kStart);
  CHECK(view.text == "No background tasks in this session.");
  CHECK(view.details == nlohmann::json{{"tasks", nlohmann::json::array()}});
}

TEST_CASE("StatusAnswer: a live run shows its stage and elapsed time, an earlier one a note") {
  TaskRegistry live;
  AddLive(live);
  TaskInfo earlier = Task(kEarlier, TaskState::kCompleted);
  earlier.terminal_text = "Fusion reason completed";
  const StatusAnswer view =
      BuildStatusAnswer(live, {earlier, *live.Resolve(kLive)}, kStart + 65'000);
  CHECK(view.text == kEarlier +
                         "  completed  fusion reason  (earlier Pi process; Fusion reason "
                         "completed)\n" +
                         kLive + "  running  fusion reason  (preflight, 1:05 elapsed)\n");
  const nlohmann::json& rows = view.details.at("tasks");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("progress").is_null());
  CHECK(rows[0].at("note") == "earlier Pi process; Fusion reason completed");
  CHECK(rows[1].at("progress").at("elapsed_ms") == 65'000);
  CHECK_FALSE(rows[1].contains("note"));
}

TEST_CASE("StatusAnswer: an earlier run that can be resumed says the person can resume it") {
  TaskRegistry live;
  TaskInfo earlier = Task(kEarlier, TaskState::kFailed);
  earlier.terminal_text = "host_ended: its Pi process ended";
  earlier.resume = ResumeHint{kEarlier, {1, 3}, false};
  TaskInfo none = Task(kLive, TaskState::kFailed);
  none.terminal_text = "child_exit_failed: candidate 1 exited 1";
  const StatusAnswer view = BuildStatusAnswer(live, {earlier, none}, kStart);
  CHECK(view.text == kEarlier +
                         "  failed  fusion reason  (earlier Pi process; host_ended: its Pi "
                         "process ended; the person can resume it with /fusion-resume 4567ffff)\n" +
                         kLive +
                         "  failed  fusion reason  (earlier Pi process; child_exit_failed: "
                         "candidate 1 exited 1)\n");
}

TEST_CASE("StatusAnswer: a run a completed run resumed says so, and is not offered again") {
  const std::string resumed = "reason-89abffffffffffffffffffffffffffff";
  SECTION("read from disk") {
    TaskRegistry live;
    TaskInfo earlier = Task(kEarlier, TaskState::kFailed);
    earlier.terminal_text = "child_exit_failed: merger";
    earlier.resumed_as = resumed;
    const StatusAnswer view = BuildStatusAnswer(live, {earlier}, kStart);
    CHECK(view.text == kEarlier + "  failed  fusion reason  (earlier Pi process; " +
                           "child_exit_failed: merger; resumed as " + resumed + ")\n");
  }
  SECTION("both runs of this process: the resume completed") {
    TaskRegistry live;
    live.Add(Task(kEarlier, TaskState::kFailed), *process::CancelToken::Create());
    TaskInfo resume = Task(resumed, TaskState::kCompleted);
    resume.resumed_from = kEarlier;
    live.Add(resume, *process::CancelToken::Create());
    const StatusAnswer view =
        BuildStatusAnswer(live, {*live.Resolve(kEarlier), *live.Resolve(resumed)}, kStart);
    CHECK(view.text.find(kEarlier + "  failed  fusion reason  (resumed as " + resumed + ")\n") ==
          0);
    CHECK(view.details.at("tasks")[0].at("note") == "resumed as " + resumed);
  }
  SECTION("a resume that failed too leaves it resumable") {
    TaskRegistry live;
    TaskInfo earlier = Task(kEarlier, TaskState::kFailed);
    earlier.resume = ResumeHint{kEarlier, {1}, false};
    TaskInfo resume = Task(resumed, TaskState::kFailed);
    resume.resumed_from = kEarlier;
    const StatusAnswer view = BuildStatusAnswer(live, {earlier, resume}, kStart);
    CHECK(view.text.find("resumed as") == std::string::npos);
    CHECK(view.text.find("the person can resume it with /fusion-resume") != std::string::npos);
  }
}

TEST_CASE("StatusAnswer: each row carries the task's question beside its description") {
  TaskRegistry live;
  TaskInfo earlier = Task(kEarlier, TaskState::kFailed);
  earlier.question = "Why is the sky blue?";
  TaskInfo unknown = Task(kLive, TaskState::kFailed);  // a run whose request could not be read
  const nlohmann::json rows =
      BuildStatusAnswer(live, {earlier, unknown}, kStart).details.at("tasks");
  CHECK(rows[0].at("question") == "Why is the sky blue?");
  CHECK(rows[0].at("description") == "d");
  CHECK(rows[1].at("question") == "");
}

TEST_CASE("ResolveLiveOrEarlier: live first, then earlier; unknown is the registry's error") {
  TaskRegistry live;
  AddLive(live);
  const std::vector<TaskInfo> earlier =
      NotLive(live, {Task(kLive, TaskState::kRunning), Task(kEarlier, TaskState::kCompleted)});
  REQUIRE(earlier.size() == 1);  // the live run is not repeated
  CHECK(earlier[0].id == kEarlier);

  CHECK(ResolveLiveOrEarlier(live, earlier, "reason-0123")->id == kLive);
  CHECK(ResolveLiveOrEarlier(live, earlier, "reason-4567")->id == kEarlier);
  const TaskLookup unknown = ResolveLiveOrEarlier(live, earlier, "reason-9");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.miss() == LookupMiss::kUnknownId);
  CHECK(unknown.status().message() == "Unknown background task ID: reason-9");
  // An ambiguous prefix among the earlier runs is that error, not "unknown".
  const std::vector<TaskInfo> two = {
      Task(kEarlier, TaskState::kCompleted),
      Task("reason-4567aaaaaaaaaaaaaaaaaaaaaaaaaaaa", TaskState::kFailed)};
  const TaskLookup ambiguous = ResolveLiveOrEarlier(live, two, "reason-45");
  REQUIRE_FALSE(ambiguous.ok());
  CHECK(ambiguous.miss() == LookupMiss::kAmbiguousPrefix);
  CHECK(ambiguous.status().message().rfind("Ambiguous", 0) == 0);
  CHECK(ambiguous.status().message() == "Ambiguous background task ID prefix: reason-45 (matches " +
                                            kEarlier +
                                            ", reason-4567aaaaaaaaaaaaaaaaaaaaaaaaaaaa)");
}

TEST_CASE("ResolveAmong: the registry's errors and kinds among earlier runs") {
  const std::vector<TaskInfo> runs = {Task(kEarlier, TaskState::kCompleted),
                                      Task(kLive, TaskState::kFailed)};
  CHECK(ResolveAmong(runs, kLive)->id == kLive);
  CHECK(ResolveAmong(runs, "reason-45")->id == kEarlier);
  CHECK(ResolveAmong(runs, "reason-45").miss() == LookupMiss::kNone);
  const TaskLookup blank = ResolveAmong(runs, "");
  CHECK(blank.miss() == LookupMiss::kIdRequired);
  CHECK(blank.status().message() == "Task ID is required");
  const TaskLookup unknown = ResolveAmong(runs, "research-");
  CHECK(unknown.miss() == LookupMiss::kUnknownId);
  CHECK(unknown.status().code() == "invalid_arguments");
  CHECK(unknown.status().message() == "Unknown background task ID: research-");
  const TaskLookup ambiguous = ResolveAmong(runs, "reason-");
  CHECK(ambiguous.miss() == LookupMiss::kAmbiguousPrefix);
  CHECK(ambiguous.status().message() ==
        "Ambiguous background task ID prefix: reason- (matches " + kEarlier + ", " + kLive + ")");
}

TEST_CASE("ResolveLiveOrEarlier: a blank id is the registry's error, never looked up on disk") {
  TaskRegistry live;
  const TaskLookup blank = ResolveLiveOrEarlier(live, {Task(kEarlier, TaskState::kFailed)}, "");
  CHECK(blank.miss() == LookupMiss::kIdRequired);
  CHECK(blank.status().message() == "Task ID is required");
}

TEST_CASE("StatusAnswer: a completed run whose answer lacks a candidate or a source says what") {
  TaskRegistry live;
  live.Add(Task(kLive, TaskState::kRunning), *process::CancelToken::Create());
  live.Finish(kLive, TaskState::kCompleted, "done", "",
              "degraded (2 of 3 candidates); 1 declared source failed");
  TaskInfo earlier = Task(kEarlier, TaskState::kCompleted);
  earlier.answer_note = "degraded (2 of 3 candidates)";
  const StatusAnswer view = BuildStatusAnswer(live, {earlier, *live.Resolve(kLive)}, kStart);
  CHECK(view.text == kEarlier +
                         "  completed  fusion reason  (earlier Pi process; degraded (2 of 3 "
                         "candidates))\n" +
                         kLive +
                         "  completed  fusion reason  (degraded (2 of 3 candidates); 1 declared "
                         "source failed)\n");
  CHECK(view.details.at("tasks")[1].at("note") ==
        "degraded (2 of 3 candidates); 1 declared source failed");
}
