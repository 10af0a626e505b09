// What /fusion-continue takes from a run: `<run id or prefix> <selector>`, where the selector is a
// candidate slot (1-3), the letter the evaluator saw (A-C, mapped through the run's anonymous
// map) or `merged`; and the one verified answer it names (verified_run.h), with the route that
// wrote it. Nothing of a run that fails verification is taken.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"
#include "store/artifact_ref.h"
#include "store/manifest.h"
#include "tasks/verified_run.h"

namespace pi_fusion::tasks {

inline constexpr char kContinueUsage[] =
    "/fusion-continue <run id or prefix> <1-3 | A-C | merged> (a candidate by slot, by the "
    "letter the evaluator saw, or the merged answer)";

// Which answer: a candidate slot, a letter (resolved later through the run's map), or merged.
struct ContinueSelector {
  int slot = 0;        // 1..3 when given as a slot
  std::string letter;  // "A".."C" when given as a letter
  bool merged = false;

  bool operator==(const ContinueSelector&) const = default;
};

struct ContinueArguments {
  std::string query;  // the run id, prefix or short id
  ContinueSelector selector;
};

// "<run> <selector>": exactly two words. invalid_arguments with the usage otherwise. A letter is
// upper-cased; `merged` is matched case-insensitively.
Result<ContinueArguments> ParseContinueArguments(std::string_view text);

// The answer a selector names in a run.
struct ContinuedAnswer {
  std::string run_id;
  std::string workflow;
  bool merged = false;
  int slot = 0;                 // 1..3; 0 for the merged answer
  std::string letter;           // the candidate's letter when the run drew its map; "" otherwise
  store::ModelSelection route;  // the candidate's route; the merger's for the merged answer
  std::string answer;           // the verified bytes
  store::ArtifactRef ref;       // what they verified against
};

// The answer `selector` names in `run` (ReadVerifiedAnswers of run `run_id`):
//   a run that fails verification: artifact_error naming each problem and `pi-fusion verify`;
//   a letter in a run without its anonymous map (it ended before the evaluation was prepared),
//   the merged answer of a run that did not complete, a slot without a verified answer:
//   invalid_arguments naming what the run does have.
Result<ContinuedAnswer> ChooseAnswer(const VerifiedAnswers& run, const std::string& run_id,
                                     const ContinueSelector& selector);

// The slot `letter` ("A".."C") stood for in a recorded anonymous map; nullopt when the map does
// not name it (no map, or a malformed one).
std::optional<int> SlotOfLetter(const nlohmann::json& anonymous_map, const std::string& letter);
// The letter of `slot` in a recorded anonymous map; "" when it has none.
std::string LetterOfSlot(const nlohmann::json& anonymous_map, int slot);

}  // namespace pi_fusion::tasks
