// When a failed, cancelled or host-ended run says it can be resumed, and how: the hint comes from
// the run's own manifest (store::CheckResumable, store::VerifiedCandidateSlots), and every text
// that shows such a run — the end notice, bg_result and its row, the run view — says it in the
// words of whoever reads it. A run without a verified candidate answer says nothing of resuming.
#include "tasks/resume_hint.h"

#include <catch2/catch.hpp>

#include "store/abandoned_run.h"
#include "store/run_id.h"
#include "store/verify.h"
#include "tasks/run_lookup.h"
#include "test_support.h"
#include "views/lifecycle_texts.h"
#include "views/result_answer.h"
#include "views/resume_texts.h"
#include "views/run_view.h"
#include "views/tool_result_view.h"

namespace pi_fusion::tasks {
using namespace pi_fusion::views;
namespace {

using nlohmann::json;
using store::testing::kRunId;
using store::testing::StoreFixture;

store::Manifest OnDisk(const std::string& dir) {
  Result<store::Manifest> m = store::ReadManifest(PosixFileSystem(), dir);
  REQUIRE(m.ok());
  return *m;
}

// A run whose three candidates verified, then ended as `state` with `error`.
std::string EndedAfterCandidates(StoreFixture& f, store::RunState state,
                                 const store::RunError& error) {
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store->Fail(state, error).terminal.ok());
  return f.store->run_dir();
}

// A run that failed at candidate 1 before any candidate answer verified.
void FailBeforeAnyAnswer(StoreFixture& f) {
  f.WalkTo(store::RunState::kCandidatesRunning);
  REQUIRE(f.store
              ->Fail(store::RunState::kFailed,
                     {"child_exit_failed", "all failed", pi_fusion::Stage::kCandidate, 1, 1})
              .terminal.ok());
}

// The run as bg_result finds it on disk (from an earlier Pi process, or after `pi -c`).
TaskInfo FoundOnDisk(StoreFixture& f) {
  Result<std::optional<TaskInfo>> found = FindRunOnDisk(f.fs, f.clock, f.dir.path(), kRunId);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  return **found;
}

bool SaysResume(const std::string& text) {
  return text.find("/fusion-resume") != std::string::npos;
}

}  // namespace

TEST_CASE("ResumeHint: the sentences for the person and for the agent", "[tasks][resume]") {
  const ResumeHint two{kRunId, {1, 3}, false};
  CHECK(ResumeCommand(kRunId) == "/fusion-resume 01234567");
  CHECK(PersonResumeText(two) ==
        "Resumable: /fusion-resume 01234567 runs only what is missing, reusing its 2 verified "
        "candidate answers.");
  CHECK(AgentResumeText(two) ==
        "Resumable: the person can resume this run with /fusion-resume 01234567, which runs only "
        "what is missing, reusing its 2 verified candidate answers. Suggest that to them rather "
        "than starting the run again; resuming is their decision.");
  CHECK(PersonResumeText({kRunId, {2}, false}) ==
        "Resumable: /fusion-resume 01234567 runs only what is missing, reusing its verified "
        "candidate answer.");
  CHECK(PersonResumeText({kRunId, {1, 2, 3}, true}) ==
        "Resumable: /fusion-resume 01234567 runs only what is missing, reusing its 3 verified "
        "candidate answers and its evaluation.");
}

TEST_CASE("ResumeHint: the view data goes out and comes back, JavaScript numbers included",
          "[tasks][resume]") {
  const ResumeHint hint{kRunId, {1, 3}, true};
  const json j = ResumeHintJson(hint);
  CHECK(j == json{{"command", "/fusion-resume 01234567"},
                  {"candidate_slots", {1, 3}},
                  {"evaluation", true}});
  json from_js = j;
  from_js["candidate_slots"] = {1.0, 3.0};
  for (const json& in : {j, from_js}) {
    const std::optional<ResumeHint> back = ResumeHintFromJson(kRunId, in);
    REQUIRE(back.has_value());
    CHECK(back->run_id == kRunId);
    CHECK(back->candidate_slots == std::vector<int>{1, 3});
    CHECK(back->evaluation);
  }
  for (const json& bad : {json(), json("x"), json::object(),
                          json{{"candidate_slots", json::array()}}, json{{"candidate_slots", {4}}},
                          json{{"candidate_slots", {"1"}}}, json{{"candidate_slots", {1.5}}}}) {
    INFO(bad.dump());
    CHECK_FALSE(ResumeHintFromJson(kRunId, bad).has_value());
  }
}

TEST_CASE("ResumeHintOf: failed, cancelled and host-ended runs with a verified answer; no other",
          "[tasks][resume]") {
  SECTION("failed at the merge: the three candidates") {
    StoreFixture f;
    const std::string dir = EndedAfterCandidates(
        f, store::RunState::kFailed,
        {"child_exit_failed", "the merger failed", pi_fusion::Stage::kMerge, std::nullopt, 1});
    const std::optional<ResumeHint> hint = ResumeHintOf(OnDisk(dir));
    REQUIRE(hint.has_value());
    CHECK(hint->run_id == kRunId);
    CHECK(hint->candidate_slots == std::vector<int>{1, 2, 3});
    CHECK_FALSE(hint->evaluation);  // it never ran
  }
  SECTION("failed at candidate 2 after its answer: the other two") {
    StoreFixture f;
    const std::string dir = EndedAfterCandidates(
        f, store::RunState::kFailed,
        {"child_exit_failed", "candidate 2 exited 1", pi_fusion::Stage::kCandidate, 2, 1});
    CHECK(ResumeHintOf(OnDisk(dir))->candidate_slots == std::vector<int>{1, 3});
  }
  SECTION("cancelled") {
    StoreFixture f;
    const std::string dir =
        EndedAfterCandidates(f, store::RunState::kCancelled,
                             {"child_cancelled", "cancelled by quitting Pi", std::nullopt});
    CHECK(ResumeHintOf(OnDisk(dir))->candidate_slots == std::vector<int>{1, 2, 3});
  }
  SECTION("host_ended, once a later Pi finalized it") {
    StoreFixture f;
    f.WalkTo(store::RunState::kCandidatesRunning);
    f.RecordCandidates();
    const std::string dir = f.store->run_dir();
    // Still running as far as its manifest says: not resumable yet.
    CHECK_FALSE(ResumeHintOf(OnDisk(dir)).has_value());
    f.store.reset();  // its host died
    REQUIRE(*store::FinalizeIfAbandoned(PosixFileSystem(), f.clock, dir));
    REQUIRE(OnDisk(dir).error->code == "host_ended");
    CHECK(ResumeHintOf(OnDisk(dir))->candidate_slots == std::vector<int>{1, 2, 3});
  }
  SECTION("no verified candidate answer") {
    StoreFixture f;
    FailBeforeAnyAnswer(f);
    CHECK_FALSE(ResumeHintOf(OnDisk(f.store->run_dir())).has_value());
  }
}

TEST_CASE("TerminalText: a resumable run ends saying so, to the agent or to the person",
          "[tasks][resume]") {
  run::RunOutcome failed;
  failed.end = run::RunEnd::kFailed;
  failed.error = Status::Error("child_exit_failed", "the merger failed");
  failed.run_error = store::RunError{"child_exit_failed", "the merger failed",
                                     pi_fusion::Stage::kMerge, std::nullopt, 1};
  failed.artifact_dir = "/p/.pi/fusion/s-1/" + std::string(kRunId);
  TaskInfo task;
  task.id = kRunId;
  task.label = "fusion reason";
  task.source = "tool";
  task.state = TaskState::kFailed;
  const ResumeHint hint{kRunId, {1, 2, 3}, false};

  // A tool's run: the agent reads the notice, and is told to suggest, not to relaunch.
  const std::string agent = TerminalText(failed, task, hint);
  CHECK(agent.starts_with("Fusion failed (stage=merge, slot=none, attempt=1): "));
  CHECK(agent.ends_with("\nArtifacts: " + failed.artifact_dir + "\n" + AgentResumeText(hint)));
  // /fusion's run: the person reads it.
  task.source = "command";
  CHECK(TerminalText(failed, task, hint)
            .ends_with("\nArtifacts: " + failed.artifact_dir + "\n" + PersonResumeText(hint)));
  // Cancelled: the same line after the cancellation's facts.
  run::RunOutcome cancelled = failed;
  cancelled.end = run::RunEnd::kCancelled;
  cancelled.error = Status::Error("child_cancelled", "cancelled by quitting Pi");
  task.state = TaskState::kKilled;
  task.cancelled_by = CancelSource::kQuit;
  const std::string quit = TerminalText(cancelled, task, hint);
  CHECK(quit.starts_with("fusion reason " + std::string(kRunId) + " cancelled by quitting Pi"));
  CHECK(quit.ends_with("\n" + PersonResumeText(hint)));
  // Nothing to resume from: not a word of it.
  CHECK_FALSE(SaysResume(TerminalText(cancelled, task, std::nullopt)));
  task.source = "tool";
  CHECK_FALSE(SaysResume(TerminalText(failed, task, std::nullopt)));
}

TEST_CASE("NoticeText: whoever watches a run gets the person's words, whoever launched it",
          "[tasks][resume]") {
  run::RunOutcome completed;
  completed.end = run::RunEnd::kCompleted;
  completed.artifact_dir = "/p/.pi/fusion/s-1/" + std::string(kRunId);
  TaskInfo task;
  task.id = kRunId;
  task.label = "fusion reason";
  task.source = "tool";
  task.state = TaskState::kCompleted;
  // The agent is pointed to bg_result; the person or program watching to the CLI.
  CHECK(TerminalText(completed, task, std::nullopt).find("Call bg_result") != std::string::npos);
  const std::string notice = NoticeText(completed, task, std::nullopt);
  CHECK(notice == "fusion reason " + std::string(kRunId) +
                      " completed. Read the verified answer with `pi-fusion show " +
                      std::string(store::ShortRunId(kRunId)) +
                      "`.\nArtifacts: " + completed.artifact_dir);
  // A failed tool run: the notice resumes in the person's words, the agent's text in its own.
  run::RunOutcome failed = completed;
  failed.end = run::RunEnd::kFailed;
  failed.error = Status::Error("child_exit_failed", "the merger failed");
  failed.run_error = store::RunError{"child_exit_failed", "the merger failed",
                                     pi_fusion::Stage::kMerge, std::nullopt, 1};
  const ResumeHint hint{kRunId, {1, 2, 3}, false};
  CHECK(NoticeText(failed, task, hint).ends_with("\n" + PersonResumeText(hint)));
  CHECK(TerminalText(failed, task, hint).ends_with("\n" + AgentResumeText(hint)));
}

TEST_CASE("bg_result: a resumable run says how in its text, details and row; others do not",
          "[tasks][resume]") {
  SECTION("host_ended, found on disk by a later Pi") {
    StoreFixture f;
    f.WalkTo(store::RunState::kCandidatesRunning);
    f.RecordCandidates();
    f.store.reset();  // its host died; bg_result's lookup finalizes it
    const TaskInfo task = FoundOnDisk(f);
    REQUIRE(task.state == TaskState::kFailed);
    Result<ResultAnswer> view = BuildResultAnswer(f.fs, f.clock, task, Delivery::kInline);
    REQUIRE(view.ok());
    const ResumeHint hint{kRunId, {1, 2, 3}, false};
    CHECK(view->text.starts_with("Fusion " + std::string(kRunId) + " failed (reason); no answer"));
    CHECK(view->text.ends_with("\n" + AgentResumeText(hint)));
    CHECK(view->details["resumable"] == ResumeHintJson(hint));
    // The person's row of the same result: the person's sentence, last.
    const json row = ToolResultView("bg_result", view->details, view->text, false, 0);
    CHECK(row["notes"].back() == PersonResumeText(hint));
  }
  SECTION("cancelled, with a notice that already said it: said once, to the agent") {
    StoreFixture f;
    EndedAfterCandidates(f, store::RunState::kCancelled,
                         {"child_cancelled", "cancelled by bg_kill", std::nullopt});
    TaskInfo task = FoundOnDisk(f);
    REQUIRE(task.state == TaskState::kKilled);
    const ResumeHint hint{kRunId, {1, 2, 3}, false};
    // The notice of a /fusion run of this process, as the registry keeps it.
    task.terminal_text = "fusion reason " + std::string(kRunId) + " cancelled by bg_kill\n" +
                         "Artifacts: " + task.artifact_dir + "\n" + PersonResumeText(hint);
    Result<ResultAnswer> view = BuildResultAnswer(f.fs, f.clock, task, Delivery::kInline);
    REQUIRE(view.ok());
    CHECK(view->text.find(PersonResumeText(hint)) == std::string::npos);
    CHECK(view->text.ends_with("\n" + AgentResumeText(hint)));
    CHECK(view->text.find("Resumable:") == view->text.rfind("Resumable:"));
  }
  SECTION("no verified candidate answer") {
    StoreFixture f;
    FailBeforeAnyAnswer(f);
    const TaskInfo task = FoundOnDisk(f);
    Result<ResultAnswer> view = BuildResultAnswer(f.fs, f.clock, task, Delivery::kInline);
    REQUIRE(view.ok());
    CHECK_FALSE(SaysResume(view->text));
    CHECK_FALSE(view->details.contains("resumable"));
    const json row = ToolResultView("bg_result", view->details, view->text, false, 0);
    CHECK_FALSE(SaysResume(row.dump()));
  }
}

TEST_CASE("TerminalRunView: the person's view of a resumable run ends with how to resume it",
          "[tasks][resume]") {
  StoreFixture f;
  const std::string dir = EndedAfterCandidates(
      f, store::RunState::kFailed,
      {"child_exit_failed", "candidate 2 exited 1", pi_fusion::Stage::kCandidate, 2, 1});
  TaskInfo task;
  task.id = kRunId;
  task.workflow = "reason";
  task.artifact_dir = dir;
  task.state = TaskState::kFailed;
  const json view = TerminalRunView(f.fs, task, 0);
  CHECK(view["notes"].back() == PersonResumeText({kRunId, {1, 3}, false, Slot::kCandidate2}));
}

TEST_CASE("QuitTraceLines: the count, then one line per cancelled run with its resume command",
          "[tasks][resume]") {
  CHECK(QuitTraceLines({}).empty());
  const std::string short_id(store::ShortRunId(kRunId));
  const std::vector<std::string> lines =
      QuitTraceLines({{"fusion reason", kRunId, ResumeHint{kRunId, {1, 2}, false, std::nullopt}},
                      {"fusion research", kRunId, std::nullopt}});
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "Fusion: quitting Pi cancelled 2 runs.");
  CHECK(lines[1] == "  fusion reason " + short_id + " cancelled · /fusion-resume " + short_id +
                        " reuses its 2 verified candidate answers");
  CHECK(lines[2] == "  fusion research " + short_id +
                        " cancelled · nothing to resume: no candidate answer verified");
  CHECK(QuitTraceLines({{"fusion reason", kRunId, std::nullopt}})[0] ==
        "Fusion: quitting Pi cancelled 1 run.");
}

}  // namespace pi_fusion::tasks
