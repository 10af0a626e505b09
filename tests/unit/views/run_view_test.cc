// The view data of run_view.h and run_expansion.h: what the person reads for a completed, running,
// failed and cancelled run, the candidates of a finished run (and when its artifacts are gone) and
// tool calls. Nothing the model needs (hashes, "Do not poll.") appears in a view.
#include "views/run_view.h"

#include <unistd.h>

#include <catch2/catch.hpp>

#include "view_checks.h"

#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/frames.h"
#include "protocol/tool_audit.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "run/judgment_text.h"
#include "run/source_failures.h"
#include "store/artifact_ref.h"
#include "store/attempt_files.h"
#include "store/run_id.h"
#include "test_support.h"
#include "views/report_texts.h"
#include "views/run_expansion.h"

using nlohmann::json;
using namespace pi_fusion;
using namespace pi_fusion::tasks;
using namespace pi_fusion::views;

namespace {

using pi_fusion::views::testing::kRun;
using pi_fusion::views::testing::kStart;
using pi_fusion::views::testing::Usage;

RunFacts Facts() {
  RunFacts f;
  f.run_id = kRun;
  f.workflow = "reason";
  f.question = "How should we migrate the run store to the new manifest version without downtime?";
  f.artifact_dir = "/w/.pi/fusion/s-1/" + std::string(kRun);
  return f;
}

store::VerifiedResult Verified(const std::string& merged) {
  store::VerifiedResult v;
  v.merged = merged;
  v.merged_ref = store::MakeRef("merged.md", merged);
  v.details = {
      {"models",
       {{"candidates", {"local/m1", "local/m2", "local/m3"}},
        {"evaluator", "local/e"},
        {"merger", "local/g"},
        {"thinking_level", "high"}}},
      {"attempts",
       {{"candidate", 3}, {"evaluation", 1}, {"evaluation_repair", 0}, {"merge", 1}, {"total", 5}}},
      {"model_requests", 8},
      {"usage", Usage()}};
  return v;
}

using pi_fusion::views::testing::MentionsModelText;

}  // namespace

TEST_CASE("a completed run: answer preview and whole, models, usage with requests, no hashes") {
  std::string merged = "# Plan\n\n";
  for (int i = 1; i <= 20; ++i) merged += "- step " + std::to_string(i) + "\n";
  RunFacts facts = Facts();
  ProgressTracker t(kStart);
  t.Apply({run::ProgressEvent::kCompleted, 0, "completed"}, kStart + 64'000);
  facts.progress = t.snapshot();
  const json view = CompletedRunView(facts, Verified(merged));
  CHECK(view["kind"] == "run");
  CHECK(view["report"] == ReportHintText(facts.run_id));
  CHECK(view["title"] == "fusion reason");
  CHECK(view["state"] == "completed");
  CHECK(view["status"] == "completed in 1:04");
  CHECK(view["question"] ==
        "How should we migrate the run store to the new manifest version without…");
  // Requests as the children counted them (a tool-using candidate makes several), not children.
  CHECK(view["usage"] == "8 model requests · 14,210 tokens · $0.0123");
  CHECK(view["answer"]["markdown"] == merged);
  CHECK(view["answer"]["note"] == std::to_string(merged.size()) + " bytes, verified");
  const std::string preview = view["answer"]["preview"];
  CHECK(preview.rfind("# Plan\n\n- step 1\n", 0) == 0);
  CHECK(preview.find("- step 10\n") != std::string::npos);
  CHECK(preview.find("- step 11") == std::string::npos);  // 12 lines
  CHECK(preview.substr(preview.size() - 3) == "…");
  REQUIRE(view["slots"].size() == 5);
  CHECK(view["slots"][0] ==
        json{{"name", "Candidate 1"}, {"state", "done"}, {"model", "local/m1"}});
  CHECK(view["slots"][3] == json{{"name", "Evaluator"}, {"state", "done"}, {"model", "local/e"}});
  CHECK(view["artifacts"]["dir"] == facts.artifact_dir);
  CHECK_FALSE(MentionsModelText(view));
}

TEST_CASE("a completed research run whose declared source failed is not a plain completed") {
  RunFacts facts = Facts();
  facts.workflow = "research";
  store::VerifiedResult verified = Verified("answer");
  CHECK_FALSE(CompletedRunView(facts, verified).contains("notes"));
  verified.details["source_failures"] =
      json::array({{{"url", "https://example.com/gone"}, {"code", "dns_failure"}}});
  const json view = CompletedRunView(facts, verified);
  CHECK(view["state"] == "completed");
  CHECK(view["status"] == "completed · 1 declared source failed");
  CHECK(view["notes"] == json::array({"Warning: the declared source https://example.com/gone could "
                                      "not be fetched (dns_failure); no candidate read it."}));
}

TEST_CASE("a completed run whose order check found an order-sensitive conflict says so") {
  store::VerifiedResult verified = Verified("answer");
  CHECK_FALSE(CompletedRunView(Facts(), verified).contains("notes"));
  verified.details["order_check"] = {
      {"passes", 2},
      {"order_sensitive", 1},
      {"conflicts",
       {{{"favoured_slots", {1, 2}}, {"stable", false}},
        {{"favoured_slots", {3, 3}}, {"stable", true}},
        {{"favoured_slots", {nullptr, nullptr}}, {"stable", true}}}}};
  CHECK(CompletedRunView(Facts(), verified)["notes"] ==
        json::array({"order-sensitive: 1 of 3 conflicts"}));
  verified.details["order_check"]["conflicts"][0] = {{"favoured_slots", {2, 2}}, {"stable", true}};
  verified.details["order_check"]["order_sensitive"] = 0;
  CHECK(CompletedRunView(Facts(), verified)["notes"] ==
        json::array({"order check: 3 conflicts stable"}));
}

TEST_CASE("a completed run whose evaluator checked claims says how many, by verdict") {
  store::VerifiedResult verified = Verified("answer");
  verified.details["checked_claims"] = {
      {{"claim", "the app answers FORTY-TWO"},
       {"verdict", "supported"},
       {"evidence", {"src/app.txt:1"}}},
      {{"claim", "the app reads \x1b[31mconfig"},
       {"verdict", "refuted"},
       {"evidence", {"a.c:2-3"}}},
      {{"claim", "it caches"}, {"verdict", "supported"}, {"evidence", {"b.c:9"}}}};
  CHECK(CompletedRunView(Facts(), verified)["notes"] ==
        json::array({"checked claims: 3 (2 supported, 1 refuted)"}));
  // ctrl+o and bg_result list each claim; model text has its terminal controls neutralized.
  const std::vector<std::string> lines = run::CheckedClaimLines(verified.details["checked_claims"]);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "- [supported] the app answers FORTY-TWO (evidence: src/app.txt:1)");
  CHECK(lines[1].find('\x1b') == std::string::npos);
  CHECK_THAT(lines[1], Catch::StartsWith("- [refuted] the app reads "));
  CHECK_THAT(lines[1], Catch::EndsWith("config (evidence: a.c:2-3)"));
  verified.details["checked_claims"] = {
      {{"claim", "x"}, {"verdict", "unclear"}, {"evidence", json::array()}}};
  CHECK(run::CheckedClaimLines(verified.details["checked_claims"]) ==
        std::vector<std::string>{"- [unclear] x"});
  verified.details["checked_claims"] = json::array();
  CHECK(CompletedRunView(Facts(), verified)["notes"] == json::array({"checked claims: 0"}));
  // A run without the policy has no list and no line.
  verified.details.erase("checked_claims");
  CHECK_FALSE(CompletedRunView(Facts(), verified).contains("notes"));
  CHECK(run::CheckedClaimsLine(json()).empty());
}

TEST_CASE("a completed research run that fetched no declared source is flagged, never a plain ✓") {
  RunFacts facts = Facts();
  facts.workflow = "research";
  store::VerifiedResult verified = Verified("answer");
  verified.details["no_source_fetched"] = true;
  const json view = CompletedRunView(facts, verified);
  CHECK(view["state"] == "completed");
  CHECK(view["status"] == "completed · no declared source fetched");
  CHECK(view["notes"] == json::array({run::kNoSourceFetchedWarning}));
}

TEST_CASE("the question is the task's own field, never dug out of its description") {
  // The request JSON an older version described a task by, cut at 240 characters in the middle
  // of the prompt: the view shows the question the task carries, not the description's text.
  const std::string prompt =
      "Why is the sky blue at noon but red at dusk, and what does "
      "Rayleigh scattering have to do with it?";
  TaskInfo task{kRun,
                "reason",
                "fusion reason",
                TaskDescription(R"({"prompt":")" + prompt + std::string(200, 'x') + R"("})"),
                "tool",
                "/nonexistent/.pi/fusion/s-1/" + std::string(kRun)};
  REQUIRE(task.description.size() == 240);
  task.question = prompt;
  task.state = TaskState::kFailed;
  CHECK(TerminalRunView(PosixFileSystem(), task, kStart)["question"] == ShortQuestion(prompt));
  CHECK(ShortQuestion(prompt) ==
        "Why is the sky blue at noon but red at dusk, and what does Rayleigh scat…");

  // A description that merely looks like JSON is not read either.
  RunFacts facts = Facts();
  facts.question = R"(Explain {"prompt":"x","y":1} in JSON)";
  CHECK(RunningRunView(facts, ProgressSnapshot{}, kStart)["question"] ==
        R"(Explain {"prompt":"x","y":1} in JSON)");
  facts.question = "";
  CHECK_FALSE(RunningRunView(facts, ProgressSnapshot{}, kStart).contains("question"));
}

TEST_CASE("a short answer's preview is the answer; a single huge line is cut in UTF-8") {
  CHECK(AnswerView("Just this.\n", "")["preview"] == "Just this.");
  const std::string wide(2000, 'x');
  const std::string cut = AnswerView("\xc3\xa9" + wide, "")["preview"];
  CHECK(cut.size() <= kPreviewMaxBytes + 5);
  CHECK(cut.substr(cut.size() - 3) == "…");
}

TEST_CASE("a running run: stage, slots, elapsed time and the quit/reload hint") {
  ProgressTracker t(kStart);
  t.Apply({run::ProgressEvent::kCandidateStarted, 1, "candidate 1 starting"}, kStart);
  t.Apply({run::ProgressEvent::kCandidateStarted, 2, "candidate 2 starting"}, kStart);
  t.Apply({run::ProgressEvent::kCandidateFailed, 2, "candidate 2 failed (x)"}, kStart);
  const json view = RunningRunView(Facts(), t.snapshot(), kStart + 42'000);
  CHECK(view["state"] == "running");
  CHECK(view["status"] == "candidates 0/3 done, 1 failed · 0:42");
  CHECK(view["slots"][0]["state"] == "running");
  CHECK(view["slots"][1]["state"] == "failed");
  CHECK(view["slots"][2]["state"] == "pending");
  CHECK(view["notes"][0] == kActiveRunHint);
}

TEST_CASE("a running run's slots say warm for a candidate a pooled process runs") {
  ProgressTracker t(kStart);
  t.Apply({run::ProgressEvent::kCandidateStarted, 1, "candidate 1 starting"}, kStart);
  t.Apply({run::ProgressEvent::kCandidateStarted, 2, "candidate 2 starting"}, kStart);
  run::ChildActivity warm;
  warm.stage = pi_fusion::Stage::kCandidate;
  warm.slot = 2;
  warm.last_output_ms = kStart;
  warm.pooled = true;
  t.Note(warm);
  const json view = RunningRunView(Facts(), t.snapshot(), kStart + 1000);
  CHECK_FALSE(view["slots"][0].contains("note"));
  CHECK(view["slots"][1]["note"] == "warm");
}

TEST_CASE("a failed run names where it stopped and its error; a cancelled one who asked") {
  const json failure = {
      {"answer", {{"present", false}, {"reason", "run_did_not_commit"}}},
      {"summary_status", "verified"},
      {"failure",
       {{"code", "child_timeout"},
        {"message", "candidate 2 timed out"},
        {"stage", "candidate"},
        {"slot", 2},
        {"attempt", 1}}},
      {"attempts",
       {{{"stage", "candidate"}, {"slot", 1}, {"attempt", 1}, {"state", "completed"}},
        {{"stage", "candidate"}, {"slot", 2}, {"attempt", 1}, {"state", "failed"}},
        {{"stage", "candidate"}, {"slot", 3}, {"attempt", 1}, {"state", "cancelled"}}}},
      {"usage_so_far", Usage()}};
  const json failed = FailedRunView(Facts(), failure, false, CancelSource::kUnknown, kStart);
  CHECK(failed["state"] == "failed");
  CHECK(failed["status"] == "failed at candidate 2");
  CHECK(failed["error"] == "child_timeout: candidate 2 timed out");
  CHECK(failed["slots"][0]["state"] == "done");
  CHECK(failed["slots"][1]["state"] == "failed");
  CHECK(failed["slots"][2]["state"] == "cancelled");
  CHECK(failed["slots"][3]["state"] == "skipped");
  CHECK(failed["usage"] == "14,210 tokens · $0.0123");
  CHECK_FALSE(failed.contains("notes"));

  for (auto [source, who] : {std::pair{CancelSource::kBgKill, "Cancelled by bg_kill."},
                             std::pair{CancelSource::kReload, "Cancelled by /reload."},
                             std::pair{CancelSource::kQuit, "Cancelled by quitting Pi."},
                             std::pair{CancelSource::kNewSession, "Cancelled by /new."},
                             std::pair{CancelSource::kResume, "Cancelled by /resume."},
                             std::pair{CancelSource::kFork, "Cancelled by /fork."},
                             std::pair{CancelSource::kSignal, "Cancelled by a signal to Pi."}}) {
    const json cancelled = FailedRunView(Facts(), failure, true, source, kStart);
    CHECK(cancelled["state"] == "cancelled");
    CHECK(cancelled["status"] == "cancelled");
    CHECK_FALSE(cancelled.contains("error"));
    CHECK(cancelled["notes"][0] == who);
  }
  CHECK(FailedRunView(Facts(), failure, true, CancelSource::kReload, kStart)["notes"][1] ==
        "Pi cancels active runs when it quits or reloads.");
}

TEST_CASE("expanding a run says which candidate started warm, and its process's task") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  for (int slot = 1; slot <= 3; ++slot) {
    const store::AttemptKey key{pi_fusion::Stage::kCandidate, slot, 1};
    store::AttemptUpdate running{key, store::AttemptState::kRunning};
    if (slot == 2) running.pooled = store::PooledRecord{3, "2025-01-02T03:04:05.006Z"};
    REQUIRE(run.store->RecordAttempt(running).ok());
    const std::string name = store::AttemptPrefix(key) + ".response.md";
    REQUIRE(run.store->WriteArtifact(name, "candidate answer " + std::to_string(slot)).ok());
    store::AttemptUpdate done{key, store::AttemptState::kCompleted};
    done.artifacts = {name};
    REQUIRE(run.store->RecordAttempt(done).ok());
  }
  const json view = ExpandRun(run.fs, run.store->run_dir());
  REQUIRE(view["candidates"].size() == 3);
  CHECK_FALSE(view["candidates"][0].contains("note"));
  CHECK(view["candidates"][1]["note"] == "started warm: a pooled Pi process, its task 3");
  CHECK(view["candidates"][1].contains("markdown"));
}

TEST_CASE("expanding a run whose evaluator checked claims lists each claim") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  run.RecordCandidates();
  REQUIRE(run.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  run.WalkTo(store::RunState::kMerging);
  const json evaluation = {
      {"agreements", json::array()},
      {"conflicts", json::array()},
      {"checked_claims",
       {{{"claim", "the app answers 42"}, {"verdict", "refuted"}, {"evidence", {"src/a.c:3"}}}}}};
  REQUIRE(run.store->WriteJsonArtifact("evaluation.json", evaluation).ok());
  const json view = ExpandRun(run.fs, run.store->run_dir());
  CHECK(view["checked_claims"] ==
        json::array({"- [refuted] the app answers 42 (evidence: src/a.c:3)"}));
}

TEST_CASE("expanding a finished run shows A/B/C with models, agreements and conflicts") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  run.RecordCandidates();
  REQUIRE(run.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  run.WalkTo(store::RunState::kMerging);
  const json evaluation = {{"agreements", {"keep the manifest"}},
                           {"conflicts",
                            {{{"topic", "lock order"},
                              {"positions",
                               {{{"candidate_id", "A"}, {"position", "store first"}},
                                {{"candidate_id", "C"}, {"position", "manifest first"}}}},
                              {"resolution", "store first"}}}}};
  REQUIRE(run.store->WriteJsonArtifact("evaluation.json", evaluation).ok());
  const std::string dir = run.store->run_dir();

  const json view = ExpandRun(run.fs, dir);
  REQUIRE(view["candidates"].size() == 3);
  // In slot order, named as the status row names them, with the evaluation's letter.
  CHECK(view["candidates"][0]["name"] == "Candidate 1 (C)");
  CHECK(view["candidates"][1]["name"] == "Candidate 2 (A)");
  CHECK(view["candidates"][2]["name"] == "Candidate 3 (B)");
  CHECK(view["candidates"][1]["id"] == "A");
  CHECK(view["candidates"][1]["slot"] == 2);
  CHECK(view["candidates"][0]["markdown"] == "candidate answer 1");
  CHECK(view["candidates"][1]["markdown"] == "candidate answer 2");
  CHECK(view["candidates"][2]["markdown"] == "candidate answer 3");
  CHECK(view["candidates"][0]["model"].get<std::string>().find('/') != std::string::npos);
  CHECK(view["agreements"] == json{"keep the manifest"});
  CHECK(view["conflicts"][0] ==
        json{{"topic", "lock order"},
             {"positions", {"Candidate 2 (A): store first", "Candidate 1 (C): manifest first"}},
             {"resolution", "store first"}});
  CHECK(view["artifacts"] == json{{"dir", dir}});
  CHECK_FALSE(view.contains("checked_claims"));

  // One candidate file altered, one removed: neither is shown as if it were the run's.
  store::testing::WriteAll(run.Path("candidate-3.attempt-1.response.md"), "edited");
  REQUIRE(::unlink(run.Path("candidate-1.attempt-1.response.md").c_str()) == 0);
  const json damaged = ExpandRun(run.fs, dir);
  CHECK_FALSE(damaged["candidates"][2].contains("markdown"));
  CHECK(damaged["candidates"][2]["note"] == "(its answer file changed after the run; not shown)");
  CHECK(damaged["candidates"][0]["note"] == "(its answer file is gone)");
  CHECK(damaged["artifacts"]["gone"] == true);

  // The whole directory gone.
  const json gone = ExpandRun(run.fs, dir + "-pruned");
  CHECK_FALSE(gone.contains("candidates"));
  CHECK(gone["artifacts"]["gone"] == true);
  CHECK(gone["artifacts"]["note"] == "(the artifacts are gone; the candidates cannot be shown)");
}

TEST_CASE("expanding a run whose order check ran lists each conflict's outcome per pass") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  run.RecordCandidates();
  REQUIRE(run.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  run.WalkTo(store::RunState::kMerging);
  auto conflict = [](const std::string& topic) {
    return json{
        {"topic", topic},
        {"positions",
         {{{"candidate_id", "A"}, {"position", "a"}}, {{"candidate_id", "B"}, {"position", "b"}}}},
        {"resolution", "r"}};
  };
  // A topic is model text: a terminal escape in it must not reach the screen as one.
  const json evaluation = {
      {"agreements", json::array()},
      {"conflicts", {conflict("lock order\x1b[2J\nnext"), conflict("naming"), conflict("tabs")}}};
  REQUIRE(run.store->WriteJsonArtifact("evaluation.json", evaluation).ok());
  const json record = {{"passes", 2},
                       {"order_sensitive", 1},
                       {"conflicts",
                        {{{"favoured_slots", {1, 3}}, {"stable", false}},
                         {{"favoured_slots", {2, 2}}, {"stable", true}},
                         {{"favoured_slots", {nullptr, nullptr}}, {"stable", true}}}}};
  REQUIRE(run.store->RecordJudgment(nullptr, nullptr, record).ok());
  const std::string dir = run.store->run_dir();

  const json view = ExpandRun(run.fs, dir);
  CHECK(view["order_check"] ==
        json{{{"text",
               "lock order\u241b[2J\u240anext: order-sensitive (pass 1 favoured Candidate 1 (C), "
               "pass 2 Candidate 3 (B))"},
              {"stable", false}},
             {{"text", "naming: stable (both passes favoured Candidate 2 (A))"}, {"stable", true}},
             {{"text", "tabs: stable (no pass favoured a candidate)"}, {"stable", true}}});
  // bg_result's expansion leaves it to the run's own block, like the conflicts.
  CHECK_FALSE(ReadBackExpansion(view, "reason-0123").contains("order_check"));

  // An evaluation changed after the run names no topic: each conflict is named by its number.
  json edited = evaluation;
  edited["conflicts"][1]["topic"] = "planted";
  store::testing::WriteAll(run.Path("evaluation.json"), edited.dump());
  const json changed = ExpandRun(run.fs, dir);
  REQUIRE(changed["order_check"].size() == 3);
  CHECK(changed["order_check"][0]["text"] ==
        "conflict 1: order-sensitive (pass 1 favoured Candidate 1 (C), pass 2 Candidate 3 (B))");
  CHECK(changed["order_check"][1]["text"] ==
        "conflict 2: stable (both passes favoured Candidate 2 (A))");
}

TEST_CASE("expanding an adaptive run: the candidate it did not ask is said so, not gone") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  for (int slot : {1, 2}) {
    const store::AttemptKey key{pi_fusion::Stage::kCandidate, slot, 1};
    REQUIRE(run.store->RecordAttempt({key, store::AttemptState::kRunning}).ok());
    const std::string name = "candidate-" + std::to_string(slot) + ".attempt-1.response.md";
    REQUIRE(run.store->WriteArtifact(name, "same answer").ok());
    REQUIRE(run.store
                ->RecordAttempt(
                    {key, store::AttemptState::kCompleted, std::nullopt, std::nullopt, {name}})
                .ok());
  }
  store::AdaptiveRecord adaptive;
  adaptive.agree = true;
  adaptive.decided_by = "identical";
  REQUIRE(run.store->RecordAdaptive(adaptive).ok());
  REQUIRE(run.store->SetAnonymousMap({{"A", 2}, {"B", 1}, {"C", 3}}).ok());
  const json view = ExpandRun(run.fs, run.store->run_dir());
  REQUIRE(view["candidates"].size() == 3);
  CHECK(view["candidates"][0]["markdown"] == "same answer");
  CHECK(view["candidates"][2]["name"] == "Candidate 3 (C)");
  CHECK(view["candidates"][2]["note"] == "(not asked: candidates 1 and 2 agreed)");
  CHECK_FALSE(view["candidates"][2].contains("markdown"));
  CHECK_FALSE(view["artifacts"].contains("gone"));
}

TEST_CASE("expanding a run without an order check adds no order_check key") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  run.RecordCandidates();
  REQUIRE(run.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  run.WalkTo(store::RunState::kMerging);
  REQUIRE(run.store->WriteJsonArtifact("evaluation.json", json{{"conflicts", json::array()}}).ok());
  CHECK_FALSE(ExpandRun(run.fs, run.store->run_dir()).contains("order_check"));
}

TEST_CASE("a failed run's block names the failing slot's model and says the provider's error") {
  const json failure = {
      {"failure",
       {{"code", "child_exit_failed"},
        {"message",
         "child ended with exit code 1: 500: {\"message\":\"Scripted internal server "
         "error\",\"type\":\"api_error\"}"},
        {"stage", "candidate"},
        {"slot", 2},
        {"attempt", 1}}},
      {"attempts",
       {{{"stage", "candidate"}, {"slot", 1}, {"attempt", 1}, {"state", "completed"}},
        {{"stage", "candidate"}, {"slot", 2}, {"attempt", 1}, {"state", "failed"}},
        {{"stage", "candidate"}, {"slot", 3}, {"attempt", 1}, {"state", "completed"}}}},
      {"models",
       {{"candidates", {"local/m1", "other/m2", "local/m3"}},
        {"evaluator", "local/e"},
        {"merger", "local/g"}}}};
  const json failed = FailedRunView(Facts(), failure, false, CancelSource::kUnknown, kStart);
  CHECK(failed["slots"][1] ==
        json{{"name", "Candidate 2"}, {"state", "failed"}, {"model", "other/m2"}});
  CHECK(failed["slots"][4]["model"] == "local/g");
  CHECK(failed["error"] ==
        "child_exit_failed: other/m2 answered HTTP 500: Scripted internal server error "
        "(api_error). The provider's reply is kept in error.json.");
  // The merger's failure names the merger's route; without models, the provider is unnamed.
  json at_merge = failure;
  at_merge["failure"]["stage"] = "merge";
  at_merge["failure"]["slot"] = nullptr;
  CHECK_THAT(FailedRunView(Facts(), at_merge, false, CancelSource::kUnknown, kStart)["error"]
                 .get<std::string>(),
             Catch::StartsWith("child_exit_failed: local/g answered HTTP 500"));
  at_merge.erase("models");
  CHECK_THAT(FailedRunView(Facts(), at_merge, false, CancelSource::kUnknown, kStart)["error"]
                 .get<std::string>(),
             Catch::StartsWith("child_exit_failed: The provider answered HTTP 500"));
}

TEST_CASE("expanding a run that failed before its evaluation shows each verified candidate") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  run.RecordCandidates();  // no anonymous map: the run ended before its evaluation
  const std::string dir = run.store->run_dir();
  json view = ExpandRun(run.fs, dir);
  REQUIRE(view["candidates"].size() == 3);
  CHECK(view["candidates"][1]["name"] == "Candidate 2");
  CHECK_FALSE(view["candidates"][1].contains("id"));
  CHECK(view["candidates"][1]["markdown"] == "candidate answer 2");
  // A changed answer is not shown, and a failed run's view keeps only what verified.
  store::testing::WriteAll(run.Path("candidate-3.attempt-1.response.md"), "edited");
  view = ExpandRun(run.fs, dir);
  KeepVerifiedCandidates(view);
  REQUIRE(view["candidates"].size() == 2);
  CHECK(view["candidates"][0]["slot"] == 1);
  CHECK(view["candidates"][1]["slot"] == 2);
  json none = {{"candidates", {{{"slot", 1}, {"note", "(its answer file is gone)"}}}}};
  KeepVerifiedCandidates(none);
  CHECK_FALSE(none.contains("candidates"));
}

TEST_CASE("bg_result's expansion leaves the candidates to the run's own block and says where") {
  const json expansion = {{"candidates", {{{"slot", 1}, {"markdown", "one"}}}},
                          {"agreements", {"a"}},
                          {"roles", {"r"}},
                          {"artifacts", {{"dir", "/w/" + std::string(kRun)}}}};
  const json read_back = ReadBackExpansion(expansion, kRun);
  CHECK(read_back["artifacts"] == expansion["artifacts"]);
  CHECK_FALSE(read_back.contains("candidates"));
  CHECK_FALSE(read_back.contains("agreements"));
  CHECK_FALSE(read_back.contains("roles"));
  REQUIRE(read_back["notes"].size() == 1);
  CHECK_THAT(
      read_back["notes"][0].get<std::string>(),
      Catch::EndsWith("pi-fusion show " + std::string(store::ShortRunId(kRun)) + " --candidates"));
  // Nothing to point to (the artifacts are gone): no note.
  CHECK_FALSE(ReadBackExpansion({{"artifacts", {{"gone", true}}}}, kRun).contains("notes"));
}

TEST_CASE("expanding a tool-using run lists each candidate's calls from its verified files") {
  store::testing::StoreFixture run;
  run.WalkTo(store::RunState::kCandidatesRunning);
  run.RecordCandidates();
  REQUIRE(run.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  const json read = {{"path", "src/app.txt"}};
  const json outside = {{"path", "../outside.txt"}};
  auto record = [](int64_t ordinal, const json& arguments, const std::string& status,
                   std::optional<std::string> code) {
    protocol::ToolCallRecord r;
    r.ordinal = ordinal;
    r.tool_name = "read";
    r.arguments_sha256 = Sha256Ref(CanonicalJson(arguments));
    r.arguments_bytes = CanonicalJson(arguments).size();
    r.result_sha256 = Sha256Ref("[]");
    r.result_bytes = 81;
    r.status = status;
    r.duration_ms = 1;
    r.provenance.error_code = std::move(code);
    return protocol::EncodeJournalLine(r);
  };
  const std::string journal =
      record(1, read, "ok", std::nullopt) + record(2, outside, "error", "path_outside_project");
  auto events = [](const json& first, const json& second) {
    return protocol::ToJson(protocol::ToolArgumentsFrame{1, first}).dump() + "\n" +
           protocol::ToJson(protocol::ToolArgumentsFrame{2, second}).dump() + "\n";
  };
  REQUIRE(run.store->WriteArtifact("candidate-2.attempt-1.tool-calls.jsonl", journal).ok());
  REQUIRE(
      run.store->WriteArtifact("candidate-2.attempt-1.events.jsonl", events(read, outside)).ok());
  const std::string dir = run.store->run_dir();

  const json view = ExpandRun(run.fs, dir);
  CHECK(view["candidates"][1]["tools"] ==
        json{{"summary", "2 tool calls, 1 refused"},
             {"calls",
              {{{"state", "done"}, {"text", "read src/app.txt · 81 bytes"}},
               {{"state", "failed"},
                {"text", "read ../outside.txt · refused: path_outside_project"}}}}});
  // A reason-style candidate without a journal has no list.
  CHECK_FALSE(view["candidates"][0].contains("tools"));

  // An event log changed after the run shows no arguments; a changed journal, no list at all.
  store::testing::WriteAll(run.Path("candidate-2.attempt-1.events.jsonl"),
                           events(json{{"path", "/etc/passwd"}}, outside));
  const json edited = ExpandRun(run.fs, dir);
  CHECK(edited["candidates"][1]["tools"]["calls"][0]["text"] ==
        "read (arguments not shown) · 81 bytes");
  CHECK(edited["candidates"][1]["tools"]["calls"][1]["text"] ==
        "read (arguments not shown) · refused: path_outside_project");
  store::testing::WriteAll(run.Path("candidate-2.attempt-1.tool-calls.jsonl"), journal + journal);
  CHECK_FALSE(ExpandRun(run.fs, dir)["candidates"][1].contains("tools"));
}

TEST_CASE("tool call headers: the workflow and a short question, or the tool and its task id") {
  CHECK(CallView("fusion_reason", {{"prompt", "Why?\nBecause."}}) ==
        json{{"title", "fusion reason"}, {"question", "Why? Because."}});
  CHECK(CallView("fusion_validate", {{"objective", "Check it"}}) ==
        json{{"title", "fusion validate"}, {"question", "Check it"}});
  CHECK(CallView("bg_result", {{"taskId", "reason-01"}}) ==
        json{{"title", "bg_result"}, {"question", "reason-01"}});
  CHECK(CallView("bg_status", json::object()) == json{{"title", "bg_status"}});
  CHECK(CallView("fusion_reason", nullptr) == json{{"title", "fusion reason"}});  // partial args
}

TEST_CASE("a completed run recorded before requests were counted shows no request count") {
  store::VerifiedResult verified = Verified("answer\n");
  verified.details.erase("model_requests");
  const json view = CompletedRunView(Facts(), verified);
  CHECK(view["usage"] == "14,210 tokens · $0.0123");  // never the five children as "requests"
}

TEST_CASE("the usage texts: requests beside the cost, and one line per role") {
  CHECK(RequestsAndUsageText(1, Usage()) == "1 model request · 14,210 tokens · $0.0123");
  CHECK(RequestsAndUsageText(nullptr, Usage()) == "14,210 tokens · $0.0123");
  CHECK(RequestsAndUsageText(3, nullptr).empty());
  const json rows = json::parse(R"([
    {"role":"candidate","slot":2,"model":"local/m2","attempts":1,"requests":2,"usage":{}},
    {"role":"repair","model":"local/e","attempts":1,"requests":null,"usage":{}},
    {"role":"merger","model":"local/g","attempts":1,"requests":1,"usage":{}}])");
  json with_usage = rows;
  for (json& row : with_usage) row["usage"] = Usage();
  CHECK(
      RoleUsageLines(with_usage) ==
      std::vector<std::string>{"Candidate 2 (local/m2): 2 model requests · 14,210 tokens · $0.0123",
                               "Repair (local/e): 14,210 tokens · $0.0123",
                               "Merger (local/g): 1 model request · 14,210 tokens · $0.0123"});
  CHECK(RoleUsageLines(rows)[0] == "Candidate 2 (local/m2): no usage reported");
  // A resumed run's reused role: paid by the run it came from.
  json reused = with_usage;
  reused[0]["reused_from"] = "reason-0123456789abcdef0123456789abcdef";
  reused[0]["requests"] = 0;
  CHECK(RoleUsageLines(reused)[0] == "Candidate 2 (local/m2): reused from 01234567");
}

TEST_CASE("a degraded run says so first: the sentence, the status and the left-out slot") {
  using run::DegradedSentence;
  const json failed = {{"slot", 3},
                       {"model", "prov/m\x1b[2J"},
                       {"reason", "failed"},
                       {"code", "child_exit_failed"},
                       {"grace_seconds", nullptr}};
  const json cut = {{"slot", 1},
                    {"model", "prov/slow"},
                    {"reason", "cut_after_grace"},
                    {"code", nullptr},
                    {"grace_seconds", 2.5}};
  // A model's name never moves the cursor or clears the screen.
  CHECK(DegradedSentence(failed) ==
        "Degraded: answered from 2 of 3 candidates; candidate 3 (prov/m\u241b[2J) failed "
        "(child_exit_failed).");
  CHECK(DegradedSentence(cut) ==
        "Degraded: answered from 2 of 3 candidates; candidate 1 (prov/slow) was cut after a grace "
        "of 2.5 s.");
  CHECK(DegradedSentence(json()).empty());
  CHECK(DegradedSentence(json{{"slot", 2}, {"model", "p/m"}, {"reason", "other"}}).empty());

  RunFacts facts = Facts();
  store::VerifiedResult verified = Verified("answer");
  verified.details["models"]["candidates"] = json::array({"a/1", "b/2", "c/3"});
  verified.details["degraded"] = failed;
  const json view = CompletedRunView(facts, verified);
  CHECK(view["state"] == "completed");
  CHECK(view["status"].get<std::string>().ends_with(" · degraded"));
  REQUIRE(view["notes"].is_array());
  CHECK(view["notes"][0] == DegradedSentence(failed));
  CHECK(view["slots"][2]["state"] == "failed");
  CHECK(view["slots"][0]["state"] == "done");
  verified.details["degraded"] = cut;
  CHECK(CompletedRunView(facts, verified)["slots"][0]["state"] == "cancelled");
}

TEST_CASE("an adaptive run says how many it asked: adaptive, never degraded; candidate 3 skipped") {
  using run::AdaptiveSentence;
  using run::AdaptiveStatus;
  const json checked = {{"agree", true},
                        {"decided_by", "check"},
                        {"differences", json::array()},
                        {"check_cost_usd", 0.0021},
                        {"reused", false}};
  const json identical = {{"agree", true},
                          {"decided_by", "identical"},
                          {"differences", json::array()},
                          {"check_cost_usd", nullptr},
                          {"reused", false}};
  const json differ = {{"agree", false},
                       {"decided_by", "check"},
                       {"differences", json::array({"one", "two"})},
                       {"check_cost_usd", 0.002},
                       {"reused", false}};
  CHECK(AdaptiveSentence(checked) ==
        "Adaptive: 2 of 3 asked: candidates 1 and 2 agreed (agreement check, $0.0021).");
  CHECK(AdaptiveSentence(identical) ==
        "Adaptive: 2 of 3 asked: candidates 1 and 2 agreed (identical answers, no check).");
  CHECK(AdaptiveSentence(differ) ==
        "Adaptive: 3 of 3 asked: candidates 1 and 2 did not agree (2 differences), so candidate 3 "
        "was asked.");
  CHECK(AdaptiveStatus(checked) == "adaptive (2 of 3 asked)");
  CHECK(AdaptiveStatus(differ) == "adaptive (3 of 3 asked)");
  CHECK(AdaptiveSentence(json()).empty());
  CHECK(AdaptiveStatus(json{{"agree", "yes"}}).empty());

  RunFacts facts = Facts();
  store::VerifiedResult verified = Verified("answer");
  verified.details["models"]["candidates"] = json::array({"a/1", "b/2", "c/3"});
  verified.details["adaptive"] = checked;
  const json view = CompletedRunView(facts, verified);
  CHECK(view["status"].get<std::string>().ends_with(" · adaptive (2 of 3 asked)"));
  CHECK(view["status"].get<std::string>().find("degraded") == std::string::npos);
  REQUIRE(view["notes"].is_array());
  CHECK(view["notes"][0] == AdaptiveSentence(checked));
  CHECK(view["slots"][2]["state"] == "skipped");
  CHECK(view["slots"][1]["state"] == "done");
  verified.details["adaptive"] = differ;
  CHECK(CompletedRunView(facts, verified)["slots"][2]["state"] == "done");
}
