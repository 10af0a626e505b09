// The files one attempt writes, as one typed name: `AttemptFile` says what a file holds, and its
// artifact name is derived from the attempt's key (manifest.h, AttemptPrefix) and that kind alone:
//   candidate-2.attempt-1.response.md     evaluation.attempt-2.response.txt
//   candidate-1.attempt-1.tool-calls.jsonl
// Writers name files with AttemptFileName; readers ask ParseAttemptFileName what a manifest's
// artifact is instead of searching its name for substrings (CONTRACTS.md "Artifacts").
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "store/manifest.h"

namespace pi_fusion::store {

enum class AttemptFile {
  kPrompt,                // the system prompt and stdin the child was given
  kResponse,              // the verified answer: ".response.md" (".response.txt" for evaluation)
  kPartialResponse,       // what a child that failed wrote: ".response.partial.md" (or .txt)
  kOversizedResponse,     // a candidate's answer over its maximum, kept whole
  kStderr,                // the child's stderr, frames included
  kEvents,                // the frames, one per line
  kCalibrationViolation,  // a first request larger than its stage's forecast
  kToolCalls,             // the tool-call journal of a tool-using child
  kSeal,                  // the journal's seal
};

// The artifact name of `file` of the attempt `key`.
// REQUIRES: ValidateAttemptKey(key).ok()
std::string AttemptFileName(const AttemptKey& key, AttemptFile file);

struct AttemptFileId {
  AttemptKey key;
  AttemptFile file = AttemptFile::kResponse;

  bool operator==(const AttemptFileId&) const = default;
};

// What the artifact `name` is, when it is exactly the name AttemptFileName gives some attempt's
// file; nullopt for every other name.
std::optional<AttemptFileId> ParseAttemptFileName(std::string_view name);

}  // namespace pi_fusion::store
