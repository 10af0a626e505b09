// Resumability: which ended runs /fusion-resume can take, what it reuses, and the refusals (a
// completed or running run, none verified, a file that fails verification), on real run
// directories.
#include "store/resumability.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "core/error_codes.h"
#include "store/constants.h"
#include "store/verify.h"
#include "test_support.h"

using namespace pi_fusion;
using namespace pi_fusion::store;
using pi_fusion::Stage;
using namespace pi_fusion::store::testing;

namespace {

void WriteInput(StoreFixture& f) {
  REQUIRE(f.store->WriteArtifact(kCanonicalInputFile, "{\"request\":{}}").ok());
}

// A run that failed at `stage` after its three candidates verified.
void FailAfterCandidates(StoreFixture& f, std::optional<Stage> stage, std::optional<int> slot) {
  WriteInput(f);
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store->Fail(RunState::kFailed, {"child_exit_failed", "boom", stage, slot, 1})
              .terminal.ok());
}

Manifest ManifestOf(const StoreFixture& f) { return f.store->Snapshot(); }

}  // namespace

TEST_CASE("resumability: a failed run with verified candidates reuses them", "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  const Manifest m = ManifestOf(f);
  CHECK(VerifiedCandidateSlots(m) == std::vector<int>{1, 2, 3});
  CHECK(CheckResumable(m).ok());
  CHECK_FALSE(EvaluationReusable(m));  // no evaluation was written

  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE(source.ok());
  CHECK(source->canonical_input == "{\"request\":{}}");
  REQUIRE(source->candidates.size() == 3);
  CHECK(source->candidates[1].record.key.slot == 2);
  CHECK(source->candidates[1].answer == "candidate answer 2");
  CHECK_FALSE(source->evaluation.has_value());

  const StoreBatch batch =
      ReuseBatch(source->candidates[0], "reason-ffffffffffffffffffffffffffffffff");
  REQUIRE(batch.attempt.has_value());
  CHECK(batch.attempt->reused_from == "reason-ffffffffffffffffffffffffffffffff");
  CHECK(batch.attempt->state == AttemptState::kCompleted);
  CHECK_FALSE(batch.attempt->usage.has_value());  // the old run paid for it
  REQUIRE(batch.files.size() == 1);
  CHECK(batch.files[0].name == "candidate-1.attempt-1.response.md");
}

TEST_CASE("resumability: the slot a run failed at, and a dropped reviewer, are not reused",
          "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kCandidate, 2);  // candidate 2 failed after its answer
  CHECK(VerifiedCandidateSlots(ManifestOf(f)) == std::vector<int>{1, 3});

  Manifest dropped = ManifestOf(f);
  dropped.dropped_reviewers.push_back({3, "validation_reports_invalid", "not a report"});
  CHECK(VerifiedCandidateSlots(dropped) == std::vector<int>{1});
}

TEST_CASE("resumability: the evaluation is reused with all three candidates and the map",
          "[store][resume]") {
  StoreFixture f;
  WriteInput(f);
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  const AttemptKey evaluator{Stage::kEvaluation, std::nullopt, 1};
  REQUIRE(f.store->WriteArtifact("evaluation.attempt-1.response.txt", "{}").ok());
  REQUIRE(f.store
              ->RecordAttempt({evaluator,
                               AttemptState::kCompleted,
                               SampleUsage(40),
                               std::nullopt,
                               {"evaluation.attempt-1.response.txt"}})
              .ok());
  REQUIRE(f.store->WriteArtifact(kBlindCandidatesFile, "blind").ok());
  REQUIRE(f.store->WriteArtifact(kEvaluationFile, "{}").ok());
  REQUIRE(
      f.store->Fail(RunState::kFailed, {"child_exit_failed", "boom", Stage::kMerge}).terminal.ok());

  CHECK(EvaluationReusable(ManifestOf(f)));
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE(source.ok());
  REQUIRE(source->evaluation.has_value());
  CHECK(source->evaluation->anonymous_map == nlohmann::json{{"A", 2}, {"B", 3}, {"C", 1}});
  REQUIRE(source->evaluation->attempts.size() == 1);
  CHECK(source->evaluation->attempts[0].answer == "{}");
  CHECK(source->evaluation->documents.size() == 2);

  Manifest two = ManifestOf(f);
  two.attempts.erase(two.attempts.begin());  // candidate 1 never verified
  CHECK_FALSE(EvaluationReusable(two));
}

TEST_CASE("resumability: refusals say why and what to do instead", "[store][resume]") {
  SECTION("completed: bg_result") {
    Manifest m;
    m.run_id = kRunId;
    m.state = RunState::kCompleted;
    const Status s = CheckResumable(m);
    CHECK(s.code() == kRunNotResumable);
    CHECK(s.message() == std::string("run ") + kRunId +
                             " cannot be resumed: it completed; read its answer with bg_result " +
                             kRunId);
  }
  SECTION("still running: wait or bg_kill") {
    StoreFixture f;
    f.WalkTo(RunState::kCandidatesRunning);
    f.RecordCandidates();
    const Status s = CheckResumable(ManifestOf(f));
    CHECK(s.code() == kRunNotResumable);
    CHECK(s.message().find("it is still running (candidates_running)") != std::string::npos);
  }
  SECTION("cancelled with no verified candidate: /fusion") {
    StoreFixture f;
    f.WalkTo(RunState::kCandidatesRunning);
    REQUIRE(f.store->Fail(RunState::kCancelled, {"child_cancelled", "quit"}).terminal.ok());
    const Status s = CheckResumable(ManifestOf(f));
    CHECK(s.code() == kRunNotResumable);
    CHECK(s.message().find("no candidate answer of it verified") != std::string::npos);
    CHECK(s.message().find("/fusion") != std::string::npos);
  }
}

TEST_CASE("resumability: a file that fails verification is named", "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  WriteAll(f.Path("candidate-3.attempt-1.response.md"), "candidate answer X");
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE_FALSE(source.ok());
  CHECK(source.status().code() == kRunNotResumable);
  CHECK(source.status().message().find(
            "cannot be resumed: candidate-3.attempt-1.response.md fails verification") !=
        std::string::npos);
}

TEST_CASE("resumability: an attempt naming a file its manifest does not bind is refused",
          "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  Manifest m = ManifestOf(f);
  m.attempts[0].artifacts.push_back("candidate-1.attempt-1.stray.txt");
  WriteAll(f.Path(kManifestFile), ManifestToJson(m).dump());
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE_FALSE(source.ok());
  CHECK(source.status().code() == kRunNotResumable);
  CHECK(source.status().message().find("names candidate-1.attempt-1.stray.txt, which its "
                                       "manifest does not bind") != std::string::npos);
}

TEST_CASE("resumability: resumed_from and reused_from survive the manifest's JSON form",
          "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  Manifest m = ManifestOf(f);
  m.resumed_from = "reason-ffffffffffffffffffffffffffffffff";
  m.attempts[0].reused_from = "reason-ffffffffffffffffffffffffffffffff";
  m.attempts[0].usage.reset();
  m.usage = SumUsage({*m.attempts[1].usage, *m.attempts[2].usage});
  Result<Manifest> back = ManifestFromJson(ManifestToJson(m));
  REQUIRE(back.ok());
  CHECK(ManifestToJson(*back) == ManifestToJson(m));

  nlohmann::json bad = ManifestToJson(m);
  bad["resumed_from"] = "not-a-run";
  CHECK_FALSE(ManifestFromJson(bad).ok());
}

TEST_CASE("resumability: a FIFO or a symlink in place of a reused answer is refused, at once",
          "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  const std::string answer = f.Path("candidate-1.attempt-1.response.md");
  SECTION("a FIFO, which a blocking open would wait on forever") {
    REQUIRE(::unlink(answer.c_str()) == 0);
    REQUIRE(::mkfifo(answer.c_str(), 0600) == 0);
  }
  SECTION("a symlink to a file with the same bytes") {
    const std::string elsewhere = f.dir.path() + "/elsewhere.md";
    WriteAll(elsewhere, ReadAll(answer));
    REQUIRE(::unlink(answer.c_str()) == 0);
    REQUIRE(::symlink(elsewhere.c_str(), answer.c_str()) == 0);
  }
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE_FALSE(source.ok());
  CHECK(source.status().code() == kRunNotResumable);
  CHECK(source.status().message().find("candidate-1.attempt-1.response.md fails verification") !=
        std::string::npos);
}

// Bug: an attempt whose child failed after its verified answer (exit 3, a frame after the
// answer) was offered and reused by a resume as long as the run's terminal error named another
// stage, and the evaluation was reused whatever its evaluator's exit was.
TEST_CASE("resumability: only an attempt that ended cleanly is verified", "[store][resume]") {
  const auto exit = [](std::optional<int> code, std::optional<int> signal, std::string stop) {
    return ChildExitRecord{code, signal, std::move(stop), /*after_answer=*/true};
  };
  struct Row {
    const char* what;
    std::optional<ChildExitRecord> exit;
    std::optional<AttemptError> error;
    bool clean;
  };
  const Row rows[] = {
      {"no exit recorded (its host died first)", std::nullopt, std::nullopt, true},
      {"exit 0 by itself", exit(0, std::nullopt, "none"), std::nullopt, true},
      {"stopped by the run after its answer", exit(std::nullopt, 15, "after_answer"), std::nullopt,
       true},
      {"stopped when the run was cancelled", exit(std::nullopt, 15, "cancelled"), std::nullopt,
       true},
      {"exit 3 after its answer", exit(3, std::nullopt, "none"), std::nullopt, false},
      {"a signal it was not sent", exit(std::nullopt, 9, "none"), std::nullopt, false},
      {"an output cap after its answer", exit(std::nullopt, 15, "stdout_cap"), std::nullopt, false},
      {"a frame after its answer (recorded as its error)", exit(0, std::nullopt, "none"),
       AttemptError{"child_event_invalid", "after its verified answer: a frame"}, false},
      {"a report that did not parse", std::nullopt,
       AttemptError{"validation_reports_invalid", "not a report"}, false},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    StoreFixture f;
    FailAfterCandidates(f, Stage::kMerge, std::nullopt);
    Manifest m = ManifestOf(f);
    m.attempts[1].exit = row.exit;
    m.attempts[1].error = row.error;
    CHECK(IsCleanEvidence(m.attempts[1]) == row.clean);
    CHECK(VerifiedCandidateSlots(m) ==
          (row.clean ? std::vector<int>{1, 2, 3} : std::vector<int>{1, 3}));
  }
}

TEST_CASE("resumability: an evaluation whose evaluator ended uncleanly is not reused",
          "[store][resume]") {
  StoreFixture f;
  WriteInput(f);
  f.WalkTo(RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store->SetAnonymousMap({{"A", 2}, {"B", 3}, {"C", 1}}).ok());
  REQUIRE(f.store->WriteArtifact("evaluation.attempt-1.response.txt", "{}").ok());
  store::AttemptUpdate evaluator{{Stage::kEvaluation, std::nullopt, 1},
                                 AttemptState::kCompleted,
                                 SampleUsage(40),
                                 std::nullopt,
                                 {"evaluation.attempt-1.response.txt"}};
  evaluator.exit = ChildExitRecord{3, std::nullopt, "none", true};
  REQUIRE(f.store->RecordAttempt(evaluator).ok());
  REQUIRE(f.store->WriteArtifact(kBlindCandidatesFile, "blind").ok());
  REQUIRE(f.store->WriteArtifact(kEvaluationFile, "{}").ok());
  REQUIRE(
      f.store->Fail(RunState::kFailed, {"child_exit_failed", "boom", Stage::kMerge}).terminal.ok());
  Manifest m = ManifestOf(f);
  CHECK_FALSE(EvaluationReusable(m));
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE(source.ok());
  CHECK_FALSE(source->evaluation.has_value());
  CHECK(source->candidates.size() == 3);

  m.attempts.back().exit = ChildExitRecord{0, std::nullopt, "none", true};
  CHECK(EvaluationReusable(m));
  // A manifest from before late failures were recorded in the attempt: the run's error names it.
  m.error = RunError{"child_event_invalid", "after its verified answer", Stage::kEvaluation};
  CHECK_FALSE(EvaluationReusable(m));
}

TEST_CASE("resumability: a chain of resumes keeps each reused file's first origin",
          "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE(source.ok());
  ReusedAttempt reused = source->candidates[0];
  CHECK(ReuseBatch(reused, "reason-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee").attempt->reused_from ==
        "reason-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
  reused.record.reused_from = "reason-ffffffffffffffffffffffffffffffff";  // reused there too
  CHECK(ReuseBatch(reused, "reason-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee").attempt->reused_from ==
        "reason-ffffffffffffffffffffffffffffffff");
}

TEST_CASE("resumability: a manifest naming another run than its directory is refused",
          "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  Manifest m = ManifestOf(f);
  m.run_id = "reason-ffffffffffffffffffffffffffffffff";
  WriteAll(f.Path(kManifestFile), ManifestToJson(m).dump());
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE_FALSE(source.ok());
  CHECK(source.status().code() == kRunNotResumable);
  CHECK(source.status().message().find("cannot be resumed: its manifest.json names another run "
                                       "(reason-ffffffffffffffffffffffffffffffff)") !=
        std::string::npos);
}

TEST_CASE("resumability: with nothing verified, the refusal names the command of its workflow",
          "[store][resume]") {
  Manifest m;
  m.run_id = kRunId;
  m.state = RunState::kFailed;
  m.workflow = "reason";
  CHECK(CheckResumable(m).message().ends_with("start it again with /fusion"));
  m.workflow = "investigate";
  CHECK(CheckResumable(m).message().ends_with(
      "ask the agent to start it again (fusion_investigate)"));
}

TEST_CASE("resumability: a run a completed run resumed is not resumed again", "[store][resume]") {
  StoreFixture f;
  FailAfterCandidates(f, Stage::kMerge, std::nullopt);
  const std::string other_id = "reason-ffffffffffffffffffffffffffffffff";
  const std::string session_dir = f.store->run_dir().substr(0, f.store->run_dir().rfind('/'));
  const std::string other_dir = session_dir + "/" + other_id;
  REQUIRE(::mkdir(other_dir.c_str(), 0700) == 0);
  Manifest resumed = ManifestOf(f);
  resumed.run_id = other_id;
  resumed.resumed_from = kRunId;
  resumed.state = RunState::kFailed;  // a resume that failed too: the old run stays resumable
  WriteAll(other_dir + "/" + kManifestFile, ManifestToJson(resumed).dump());
  CHECK_FALSE(CompletedResumeOf(PosixFileSystem(), f.store->run_dir(), kRunId).has_value());
  REQUIRE(ReadResumeSource(PosixFileSystem(), f.store->run_dir()).ok());

  resumed.state = RunState::kCompleted;
  resumed.error.reset();
  WriteAll(other_dir + "/" + kManifestFile, ManifestToJson(resumed).dump());
  CHECK(CompletedResumeOf(PosixFileSystem(), f.store->run_dir(), kRunId) == other_id);
  Result<ResumeSource> source = ReadResumeSource(PosixFileSystem(), f.store->run_dir());
  REQUIRE_FALSE(source.ok());
  CHECK(source.status().code() == kRunNotResumable);
  CHECK(source.status().message() ==
        std::string("run ") + kRunId + " cannot be resumed: it was " + "resumed as " + other_id +
            ", which completed; read its answer with bg_result " + other_id);
}
