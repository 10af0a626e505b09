#include "store/attempt_files.h"

#include <charconv>

#include "core/name_table.h"

namespace pi_fusion::store {
namespace {

inline constexpr NameTable<AttemptFile, 9> kSuffixes = {
    {AttemptFile::kPrompt, AttemptFile::kResponse, AttemptFile::kPartialResponse,
     AttemptFile::kOversizedResponse, AttemptFile::kStderr, AttemptFile::kEvents,
     AttemptFile::kCalibrationViolation, AttemptFile::kToolCalls, AttemptFile::kSeal},
    {".prompt.txt", ".response", ".response.partial", ".response.oversized.md", ".stderr.txt",
     ".events.jsonl", ".calibration-violation.json", ".tool-calls.jsonl", ".seal.json"}};

// The evaluation's and the order check's answers are JSON read as text before they parse; every
// other answer is Markdown.
std::string_view AnswerExtension(Stage stage) {
  return stage == Stage::kEvaluation || stage == Stage::kAgreement || stage == Stage::kOrderCheck
             ? ".txt"
             : ".md";
}

// The key of a name that starts "<stage>[-<slot>].attempt-<n>", and the rest after it.
std::optional<AttemptKey> ParseKey(std::string_view name, std::string_view* rest) {
  constexpr std::string_view kAttempt = ".attempt-";
  const size_t at = name.find(kAttempt);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view stage_part = name.substr(0, at);
  AttemptKey key;
  if (const size_t dash = stage_part.find('-'); dash != std::string_view::npos) {
    int slot = 0;
    const std::string_view digits = stage_part.substr(dash + 1);
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), slot);
    if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    key.slot = slot;
    stage_part = stage_part.substr(0, dash);
  }
  const std::optional<Stage> stage = ParseStage(stage_part);
  if (!stage) return std::nullopt;
  key.stage = *stage;
  const std::string_view tail = name.substr(at + kAttempt.size());
  auto [end, error] = std::from_chars(tail.data(), tail.data() + tail.size(), key.attempt);
  if (error != std::errc() || !ValidateAttemptKey(key).ok()) return std::nullopt;
  *rest = tail.substr(static_cast<size_t>(end - tail.data()));
  return key;
}

}  // namespace

std::string AttemptFileName(const AttemptKey& key, AttemptFile file) {
  std::string name = AttemptPrefix(key) + std::string(kSuffixes.Name(file));
  if (file == AttemptFile::kResponse || file == AttemptFile::kPartialResponse) {
    name += AnswerExtension(key.stage);
  }
  return name;
}

std::optional<AttemptFileId> ParseAttemptFileName(std::string_view name) {
  std::string_view rest;
  const std::optional<AttemptKey> key = ParseKey(name, &rest);
  if (!key) return std::nullopt;
  for (AttemptFile file : kSuffixes.values) {
    // Compared whole, so "1" and "01" or a second extension never pass as the same file.
    if (AttemptFileName(*key, file) == name) return AttemptFileId{*key, file};
  }
  return std::nullopt;
}

}  // namespace pi_fusion::store
