#include "tasks/continue_choice.h"

#include <cctype>
#include <sstream>
#include <vector>

#include "core/error_codes.h"
#include "store/run_id.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::tasks {
namespace {

Status Usage(const std::string& why) {
  return Status::Error(kInvalidArguments,
                       "/fusion-continue: " + why + ". Usage: " + std::string(kContinueUsage));
}

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::optional<ContinueSelector> ParseSelector(const std::string& word) {
  if (word.size() == 1 && word[0] >= '1' && word[0] <= '3') return ContinueSelector{word[0] - '0'};
  if (word.size() == 1) {
    const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(word[0])));
    if (upper >= 'A' && upper <= 'C') return ContinueSelector{0, std::string(1, upper)};
  }
  if (Lower(word) == "merged") return ContinueSelector{0, "", true};
  return std::nullopt;
}

// "1 (p/m), 3 (p/m)"; "none" when no candidate verified.
std::string VerifiedList(const VerifiedAnswers& run) {
  std::string list;
  for (const VerifiedCandidate& c : run.candidates) {
    list += (list.empty() ? "" : ", ") + std::to_string(c.slot) + " (" + c.model + ")";
  }
  return list.empty() ? "none" : list;
}

// What the run does have, for a refusal: its verified candidates and whether it has a merged
// answer.
std::string WhatItHas(const VerifiedAnswers& run, const std::string& short_id) {
  if (run.candidates.empty() && !run.merged) {
    return "it has no verified answer to continue with";
  }
  std::string has = "verified candidates: " + VerifiedList(run);
  if (run.merged) has += "; or the merged answer (/fusion-continue " + short_id + " merged)";
  return has;
}

Status Unverified(const VerifiedAnswers& run, const std::string& run_id) {
  std::string problems;
  for (const std::string& problem : run.problems)
    problems += (problems.empty() ? "" : "; ") + problem;
  const std::string short_id(store::ShortRunId(run_id));
  return Status::Error(kArtifactError,
                       "run " + run_id +
                           " does not verify, so none of its answers is put into the "
                           "conversation: " +
                           problems + ". `pi-fusion verify " + short_id +
                           "` checks it again; ask the question again with /fusion for an answer "
                           "that verifies");
}

}  // namespace

Result<ContinueArguments> ParseContinueArguments(std::string_view text) {
  std::istringstream words{std::string(text)};
  std::vector<std::string> parts;
  for (std::string word; words >> word;) parts.push_back(word);
  if (parts.empty()) return Usage("name a run and the answer to continue with");
  if (parts.size() == 1) return Usage("name the answer to continue with after the run");
  if (parts.size() > 2) return Usage("too many arguments (" + std::to_string(parts.size()) + ")");
  std::optional<ContinueSelector> selector = ParseSelector(parts[1]);
  if (!selector) return Usage("`" + parts[1] + "` is not a slot 1-3, a letter A-C or `merged`");
  return ContinueArguments{parts[0], *selector};
}

std::optional<int> SlotOfLetter(const nlohmann::json& anonymous_map, const std::string& letter) {
  if (!anonymous_map.is_object() || !anonymous_map.contains(letter)) return std::nullopt;
  const nlohmann::json& slot = anonymous_map.at(letter);
  if (!slot.is_number_integer() || slot.get<int>() < 1 || slot.get<int>() > 3) return std::nullopt;
  return slot.get<int>();
}

std::string LetterOfSlot(const nlohmann::json& anonymous_map, int slot) {
  for (std::string_view id : workflow::kCandidateIds) {
    if (SlotOfLetter(anonymous_map, std::string(id)) == slot) return std::string(id);
  }
  return "";
}

Result<ContinuedAnswer> ChooseAnswer(const VerifiedAnswers& run, const std::string& run_id,
                                     const ContinueSelector& selector) {
  if (!run.problems.empty() || !run.manifest) return Unverified(run, run_id);
  const store::Manifest& m = *run.manifest;
  const std::string short_id(store::ShortRunId(run_id));
  ContinuedAnswer out{run_id, m.workflow};
  if (selector.merged) {
    if (!run.merged) {
      return Status::Error(kInvalidArguments, "run " + run_id + " has no merged answer (it is " +
                                                  std::string(store::RunStateName(m.state)) +
                                                  "); " + WhatItHas(run, short_id));
    }
    out.merged = true;
    out.route = m.models.merger;
    out.answer = *run.merged;
    out.ref = m.artifacts.at("merged.md");
    return out;
  }
  int slot = selector.slot;
  if (!selector.letter.empty()) {
    const std::optional<int> mapped = SlotOfLetter(m.anonymous_map, selector.letter);
    if (!mapped) {
      return Status::Error(kInvalidArguments,
                           "run " + run_id + " has no candidate " + selector.letter +
                               ": it ended before its candidates were lettered for the "
                               "evaluator; name a slot instead (" +
                               WhatItHas(run, short_id) + ")");
    }
    slot = *mapped;
  }
  for (const VerifiedCandidate& candidate : run.candidates) {
    if (candidate.slot != slot) continue;
    out.slot = slot;
    out.letter = LetterOfSlot(m.anonymous_map, slot);
    out.route = m.models.candidates[slot - 1];
    out.answer = candidate.answer;
    out.ref = candidate.ref;
    return out;
  }
  return Status::Error(kInvalidArguments,
                       "candidate " + std::to_string(slot) +
                           (selector.letter.empty() ? "" : " (" + selector.letter + ")") +
                           " of run " + run_id + " has no verified answer; " +
                           WhatItHas(run, short_id));
}

}  // namespace pi_fusion::tasks
