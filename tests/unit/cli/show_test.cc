// `pi-fusion show`: what it reads of a run directory written by the run store in a temp dir (only
// verified bytes, nothing of a run that does not verify), what it prints and its exit status; and
// how a run is named (run_lookup.h).
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/run_lookup.h"
#include "cli/run_show.h"
#include "store/verify.h"
#include "test_support.h"

namespace pi_fusion::cli {
namespace {

constexpr char kAnswer[] = "# Answer\n\nMerged text with \xc3\xa9 and \x1b[2J.";

using nlohmann::json;
using store::testing::kRunId;
using store::testing::StoreFixture;
using store::testing::WriteAll;

// A run whose three candidates verified, then committed kAnswer.
struct CompletedRun : store::testing::CompletedRunFixture {
  CompletedRun() : CompletedRunFixture(kAnswer) {}
};

TEST_CASE("show: a completed run's verified answer and candidates") {
  CompletedRun f;
  const RunShow run = ReadRunShow(f.fs, f.run_dir);
  CHECK(run.problems.empty());
  CHECK(run.run_id == kRunId);
  CHECK(run.state == "completed");
  REQUIRE(run.answer);
  CHECK(*run.answer == kAnswer);
  REQUIRE(run.candidates.size() == 3);
  for (int slot = 1; slot <= 3; ++slot) {
    CHECK(run.candidates[slot - 1].slot == slot);
    CHECK(run.candidates[slot - 1].model == "local/scripted");
    CHECK(run.candidates[slot - 1].answer == "candidate answer " + std::to_string(slot));
  }
  CHECK(ShowExitCode(run) == kShowAnswered);
  CHECK(ShowText(run, false) == std::string(kAnswer) + "\n");
  CHECK(ShowText(run, true) == "=== Merged answer of " + std::string(kRunId) + " ===\n" + kAnswer +
                                   "\n\n=== Candidate 1: local/scripted ===\ncandidate answer 1\n"
                                   "\n=== Candidate 2: local/scripted ===\ncandidate answer 2\n"
                                   "\n=== Candidate 3: local/scripted ===\ncandidate answer 3\n");
  const json out = ShowJson(run, true);
  CHECK(out["run_id"] == kRunId);
  CHECK(out["workflow"] == "reason");
  CHECK(out["state"] == "completed");
  CHECK(out["verified"] == true);
  CHECK(out["problems"] == json::array());
  CHECK(out["answer"] == kAnswer);
  CHECK(out["failure"].is_null());
  CHECK(out["resumable"].is_null());
  CHECK(out["verified_candidates"] == json{1, 2, 3});
  CHECK(out["candidates"][1] ==
        json{{"slot", 2}, {"model", "local/scripted"}, {"answer", "candidate answer 2"}});
  CHECK_FALSE(ShowJson(run, false).contains("candidates"));
}

TEST_CASE("show: a tampered artifact shows nothing of the run") {
  CompletedRun f;
  SECTION("merged.md") { WriteAll(f.run_dir + "/merged.md", "TAMPERED ANSWER"); }
  SECTION("a candidate's answer") {
    WriteAll(f.run_dir + "/candidate-2.attempt-1.response.md", "TAMPERED ANSWER");
  }
  const RunShow run = ReadRunShow(f.fs, f.run_dir);
  REQUIRE_FALSE(run.problems.empty());
  CHECK_FALSE(run.answer);
  CHECK(run.candidates.empty());
  CHECK(ShowExitCode(run) == kShowUnverified);
  const std::string error = UnverifiedText(run);
  CHECK_THAT(error, Catch::StartsWith("error: " + std::string(kRunId) + " does not verify"));
  CHECK_THAT(error, Catch::Contains("\n  merged.md: ") ||
                        Catch::Contains("\n  candidate-2.attempt-1.response.md: "));
  CHECK_THAT(error, !Catch::Contains("TAMPERED"));
  const json out = ShowJson(run, true);
  CHECK(out["verified"] == false);
  CHECK(out["answer"].is_null());
  CHECK(out["candidates"] == json::array());
  CHECK_THAT(out.dump(), !Catch::Contains("TAMPERED"));
}

TEST_CASE("show: a failed run says what it has and how to resume it") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  f.RecordCandidates();
  REQUIRE(f.store
              ->Fail(store::RunState::kFailed,
                     {"child_exit_failed", "candidate 2 failed\nfor good", Stage::kCandidate, 2, 1})
              .terminal.ok());
  const std::string dir = f.store->run_dir();
  f.store.reset();
  const RunShow run = ReadRunShow(f.fs, dir);
  CHECK(run.problems.empty());
  CHECK(run.state == "failed");
  CHECK_FALSE(run.answer);
  REQUIRE(run.failure);
  CHECK(run.failure->code == "child_exit_failed");
  REQUIRE(run.candidates.size() == 2);  // the slot the error names did not verify
  CHECK(run.candidates[0].slot == 1);
  CHECK(run.candidates[1].slot == 3);
  CHECK(ShowExitCode(run) == kShowNoAnswer);
  const std::string text = ShowText(run, false);
  CHECK(text ==
        "Fusion " + std::string(kRunId) +
            " (reason) failed; no answer was committed.\n"
            "Failure: child_exit_failed: candidate 2 failed\xe2\x90\x8a"
            "for good\n"
            "Verified candidate answers: 1 (local/scripted), 3 (local/scripted). --candidates "
            "prints them.\n"
            "Resumable: /fusion-resume 01234567 runs only what is missing, reusing its 2 "
            "verified candidate answers. If Candidate 2's model keeps failing, you can resume on "
            "another: /fusion-resume 01234567 --slot 2=provider/model. With quorum 2 "
            "(/fusion-models), a run accepts two verified candidate answers when the third "
            "fails.\n");
  CHECK_THAT(ShowText(run, true),
             Catch::EndsWith("\n\n=== Candidate 3: local/scripted ===\ncandidate answer 3\n"));
  const json out = ShowJson(run, false);
  CHECK(out["verified"] == true);
  CHECK(out["answer"].is_null());
  CHECK(out["failure"]["code"] == "child_exit_failed");
  CHECK(out["failure"]["slot"] == 2);
  CHECK(out["verified_candidates"] == json{1, 3});
  CHECK(out["resumable"]["command"] == "/fusion-resume 01234567");
}

TEST_CASE("show: running, interrupted and cancelled runs") {
  StoreFixture f;
  f.WalkTo(store::RunState::kCandidatesRunning);
  const std::string dir = f.store->run_dir();
  RunShow run = ReadRunShow(f.fs, dir);  // its owner holds the lock
  CHECK(ShowExitCode(run) == kShowNoAnswer);
  CHECK(ShowText(run, false) == "Fusion " + std::string(kRunId) +
                                    " (reason) is still running (candidates_running); no answer "
                                    "yet.\nNo candidate answer verified.\n");
  f.RecordCandidates();
  f.store.reset();  // its Pi died
  run = ReadRunShow(f.fs, dir);
  CHECK(run.state == "interrupted");
  CHECK_THAT(ShowText(run, false),
             Catch::StartsWith("Fusion " + std::string(kRunId) +
                               " (reason) was interrupted: its Pi ended before the run did; no "
                               "answer was committed.\nVerified candidate answers: 1 "));
  CHECK_THAT(ShowText(run, false), Catch::Contains("\nResumable: /fusion-resume 01234567 "));

  RunShow cancelled;
  cancelled.run_id = kRunId;
  cancelled.workflow = "reason";
  cancelled.state = "cancelled";
  cancelled.cancelled_by = "quitting Pi";
  CHECK(ShowText(cancelled, false) == "Fusion " + std::string(kRunId) +
                                          " (reason) was cancelled by quitting Pi; no answer was "
                                          "committed.\nNo candidate answer verified.\n");
  cancelled.resumed_as = "reason-fedcba9876543210fedcba9876543210";
  CHECK_THAT(ShowText(cancelled, false),
             Catch::EndsWith("\nIt was resumed as reason-fedcba9876543210fedcba9876543210, "
                             "which completed: pi-fusion show fedcba98 prints its answer.\n"));
}

TEST_CASE("show: an unreadable manifest is a verification failure") {
  CompletedRun f;
  WriteAll(f.run_dir + "/manifest.json", "{");
  const RunShow run = ReadRunShow(f.fs, f.run_dir);
  CHECK(run.state == "unreadable");
  CHECK(ShowExitCode(run) == kShowUnverified);
  CHECK(ShowJson(run, false)["workflow"].is_null());
}

TEST_CASE("FindRunDir: a run by id, prefix, short id or directory; none and several are errors") {
  CompletedRun f;
  const std::string project = f.dir.path();
  for (const std::string& name :
       {std::string(kRunId), std::string("reason-0123"), std::string("01234567"), f.run_dir}) {
    INFO(name);
    const Result<std::string> found = FindRunDir(name, project);
    REQUIRE(found.ok());
    CHECK(*found == f.run_dir);
  }
  Result<std::string> found = FindRunDir("reason-ffff", project);
  CHECK(found.status().code() == "invalid_arguments");
  CHECK_THAT(found.status().message(), Catch::StartsWith("no such run: no run reason-ffff under "));
  // A second run whose id shares the prefix: the prefix names both, the whole id one.
  const std::string other = "reason-0123456789abcdef0123456789abcdee";
  REQUIRE(std::filesystem::create_directories(project + "/.pi/fusion/s-1/" + other));
  found = FindRunDir("reason-0123", project);
  CHECK(found.status().code() == "invalid_arguments");
  CHECK(found.status().message() ==
        "ambiguous run id reason-0123 (matches " + other + ", " + kRunId + ")");
  CHECK(FindRunDir(kRunId, project).ok());
  CHECK(ProjectDir(project + "/missing").status().message() ==
        "--cwd " + project + "/missing is not a directory");
}

}  // namespace
}  // namespace pi_fusion::cli
