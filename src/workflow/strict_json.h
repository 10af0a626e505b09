// The strict JSON reading every model-produced contract shares (the evaluator's evaluation and
// the validation reviewers' reports).
//
// The text, trimmed of surrounding JSON whitespace (space, tab, LF, CR) and nothing else, must
// be exactly one JSON value: no Markdown fence is stripped, no text around it is tolerated, no
// object repeats a key, nesting is at most kStrictJsonMaxDepth deep. Anything looser (the one
// audited fence recovery of validation reports) lives beside its own contract, never here.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pi_fusion::workflow {

// Deeper nesting than any contract needs; refusing it keeps recursive walks bounded.
inline constexpr int kStrictJsonMaxDepth = 32;

struct StrictJson {
  nlohmann::json value;  // meaningful iff error is empty
  std::string error;     // why the text is not one strict JSON value, e.g. "the report is empty"
  bool ok() const { return error.empty(); }
};

// `text` with space, tab, LF and CR removed from both ends.
std::string_view TrimJsonSpace(std::string_view text);

// Parses TrimJsonSpace(text) strictly; `what` names the text in errors ("the <what> is empty").
StrictJson ParseStrictJson(std::string_view text, std::string_view what);

}  // namespace pi_fusion::workflow
