// /fusion-continue's arguments and the answer they name, over a real run directory written by the
// run store in a temp dir: only verified bytes are taken, letters map through the run's anonymous
// map, and every refusal carries its code and says what the run does have.
#include <catch2/catch.hpp>

#include "tasks/continue_choice.h"
#include "tasks/verified_run.h"
#include "test_support.h"

namespace pi_fusion::tasks {
namespace {

using store::testing::CompletedRunFixture;
using store::testing::kRunId;
using store::testing::WriteAll;

constexpr char kMerged[] = "# Merged\n\nThe merged answer.";

TEST_CASE("ParseContinueArguments: a run and a slot, a letter or merged") {
  CHECK(ParseContinueArguments("1a2b3c4d 2")->selector == ContinueSelector{2});
  CHECK(ParseContinueArguments("reason-1a 2")->query == "reason-1a");
  CHECK(ParseContinueArguments("1a2b3c4d b")->selector == ContinueSelector{0, "B"});
  CHECK(ParseContinueArguments("  1a2b3c4d   C ")->selector == ContinueSelector{0, "C"});
  CHECK(ParseContinueArguments("1a2b3c4d Merged")->selector == ContinueSelector{0, "", true});
  for (const char* bad :
       {"", "1a2b3c4d", "1a2b3c4d 4", "1a2b3c4d 0", "1a2b3c4d D", "1a2b3c4d 2 3", "1a2b3c4d all"}) {
    INFO(bad);
    const Status status = ParseContinueArguments(bad).status();
    CHECK(status.code() == "invalid_arguments");
    CHECK_THAT(status.message(), Catch::Contains("Usage: /fusion-continue <run id or prefix>"));
  }
}

TEST_CASE("ChooseAnswer: a completed run's candidates by slot and letter, and its merged answer") {
  CompletedRunFixture f(kMerged);
  VerifiedAnswers run = ReadVerifiedAnswers(f.fs, f.run_dir);
  REQUIRE(run.problems.empty());
  run.manifest->anonymous_map = {{"A", 2}, {"B", 3}, {"C", 1}};

  const Result<ContinuedAnswer> by_slot = ChooseAnswer(run, kRunId, {2});
  REQUIRE(by_slot.ok());
  CHECK(by_slot->slot == 2);
  CHECK(by_slot->letter == "A");
  CHECK(by_slot->answer == "candidate answer 2");
  CHECK(by_slot->route.QualifiedId() == "local/scripted");
  CHECK(by_slot->ref.path == "candidate-2.attempt-1.response.md");
  CHECK(by_slot->ref.byte_length == by_slot->answer.size());

  const Result<ContinuedAnswer> by_letter = ChooseAnswer(run, kRunId, {0, "C"});
  REQUIRE(by_letter.ok());
  CHECK(by_letter->slot == 1);
  CHECK(by_letter->letter == "C");
  CHECK(by_letter->answer == "candidate answer 1");

  const Result<ContinuedAnswer> merged = ChooseAnswer(run, kRunId, {0, "", true});
  REQUIRE(merged.ok());
  CHECK(merged->merged);
  CHECK(merged->slot == 0);
  CHECK(merged->answer == kMerged);
  CHECK(merged->ref.path == "merged.md");

  // Without a map, letters name nothing, and the refusal says what to name instead.
  run.manifest->anonymous_map = nullptr;
  const Status no_map = ChooseAnswer(run, kRunId, {0, "A"}).status();
  CHECK(no_map.code() == "invalid_arguments");
  CHECK_THAT(no_map.message(), Catch::Contains("has no candidate A") &&
                                   Catch::Contains("verified candidates: 1 (local/scripted), 2 "
                                                   "(local/scripted), 3 (local/scripted)"));
  CHECK(ChooseAnswer(run, kRunId, {3})->letter.empty());
}

TEST_CASE("ChooseAnswer: a tampered answer is refused with artifact_error, nothing of it taken") {
  CompletedRunFixture f(kMerged);
  WriteAll(f.run_dir + "/candidate-2.attempt-1.response.md", "TAMPERED");
  const VerifiedAnswers run = ReadVerifiedAnswers(f.fs, f.run_dir);
  CHECK(run.candidates.empty());
  CHECK_FALSE(run.merged);
  for (const ContinueSelector& selector :
       {ContinueSelector{1}, ContinueSelector{2}, ContinueSelector{0, "", true}}) {
    const Status status = ChooseAnswer(run, kRunId, selector).status();
    CHECK(status.code() == "artifact_error");
    CHECK_THAT(status.message(), Catch::Contains("does not verify") &&
                                     Catch::Contains("candidate-2.attempt-1.response.md") &&
                                     Catch::Contains("pi-fusion verify") &&
                                     !Catch::Contains("TAMPERED"));
  }
}

TEST_CASE("ChooseAnswer: a slot without a verified answer, and merged of a run that failed") {
  store::testing::StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store
              ->Fail(store::RunState::kFailed,
                     {"child_exit_failed", "the evaluator failed", Stage::kEvaluation, {}, 1})
              .terminal.ok());
  const std::string dir = f.store->run_dir();
  f.store.reset();
  VerifiedAnswers run = ReadVerifiedAnswers(f.fs, dir);
  REQUIRE(run.problems.empty());
  CHECK(ChooseAnswer(run, kRunId, {3})->answer == "candidate answer 3");
  const Status merged = ChooseAnswer(run, kRunId, {0, "", true}).status();
  CHECK(merged.code() == "invalid_arguments");
  CHECK_THAT(merged.message(), Catch::Contains("has no merged answer (it is failed)"));
  run.candidates.erase(run.candidates.begin() + 1);  // as if candidate 2 had not verified
  const Status missing = ChooseAnswer(run, kRunId, {2}).status();
  CHECK(missing.code() == "invalid_arguments");
  CHECK_THAT(missing.message(),
             Catch::Contains("candidate 2 of run " + std::string(kRunId) +
                             " has no verified answer; verified candidates: 1 (local/scripted), "
                             "3 (local/scripted)"));
}

}  // namespace
}  // namespace pi_fusion::tasks
