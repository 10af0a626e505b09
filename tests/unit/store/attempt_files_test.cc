// Attempt file names: written from one typed name, read back only when exact.
#include <catch2/catch.hpp>

#include "store/attempt_files.h"

namespace pi_fusion::store {
namespace {

const AttemptKey kCandidate2{Stage::kCandidate, 2, 1};
const AttemptKey kRepair{Stage::kEvaluation, std::nullopt, 2};
const AttemptKey kMerge{Stage::kMerge, std::nullopt, 1};

TEST_CASE("AttemptFileName: the names CONTRACTS.md lists") {
  CHECK(AttemptFileName(kCandidate2, AttemptFile::kResponse) ==
        "candidate-2.attempt-1.response.md");
  CHECK(AttemptFileName(kRepair, AttemptFile::kResponse) == "evaluation.attempt-2.response.txt");
  CHECK(AttemptFileName(kMerge, AttemptFile::kPartialResponse) ==
        "merge.attempt-1.response.partial.md");
  CHECK(AttemptFileName(kRepair, AttemptFile::kPartialResponse) ==
        "evaluation.attempt-2.response.partial.txt");
  CHECK(AttemptFileName(kCandidate2, AttemptFile::kOversizedResponse) ==
        "candidate-2.attempt-1.response.oversized.md");
  CHECK(AttemptFileName(kCandidate2, AttemptFile::kToolCalls) ==
        "candidate-2.attempt-1.tool-calls.jsonl");
  CHECK(AttemptFileName(kCandidate2, AttemptFile::kSeal) == "candidate-2.attempt-1.seal.json");
  CHECK(AttemptFileName(kCandidate2, AttemptFile::kPrompt) == "candidate-2.attempt-1.prompt.txt");
  CHECK(AttemptFileName(kMerge, AttemptFile::kStderr) == "merge.attempt-1.stderr.txt");
  CHECK(AttemptFileName(kMerge, AttemptFile::kEvents) == "merge.attempt-1.events.jsonl");
  CHECK(AttemptFileName(kMerge, AttemptFile::kCalibrationViolation) ==
        "merge.attempt-1.calibration-violation.json");
}

TEST_CASE("ParseAttemptFileName: every written name reads back as itself") {
  for (const AttemptKey& key : {kCandidate2, kRepair, kMerge}) {
    for (AttemptFile file :
         {AttemptFile::kPrompt, AttemptFile::kResponse, AttemptFile::kPartialResponse,
          AttemptFile::kOversizedResponse, AttemptFile::kStderr, AttemptFile::kEvents,
          AttemptFile::kCalibrationViolation, AttemptFile::kToolCalls, AttemptFile::kSeal}) {
      const std::string name = AttemptFileName(key, file);
      INFO(name);
      CHECK(ParseAttemptFileName(name) == AttemptFileId{key, file});
    }
  }
}

TEST_CASE("ParseAttemptFileName: nothing else is an attempt file") {
  for (std::string_view name :
       {"merged.md", "result.json", "candidate-4.attempt-1.response.md",
        "candidate.attempt-1.response.md", "evaluation-1.attempt-1.response.txt",
        "candidate-2.attempt-0.response.md", "candidate-02.attempt-1.response.md",
        "candidate-2.attempt-1.response.txt", "evaluation.attempt-1.response.md",
        "candidate-2.attempt-1.response.md.bak", "x-candidate-2.attempt-1.response.md",
        "candidate-2.attempt-1.tool-calls.jsonl.partial", "candidate-2.attempt-1"}) {
    INFO(name);
    CHECK_FALSE(ParseAttemptFileName(name).has_value());
  }
}

}  // namespace
}  // namespace pi_fusion::store
