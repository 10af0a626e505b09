// Output contracts of the child stages: size limits measured in JSON-rendered UTF-8 bytes
// (pi_fusion::JsonRenderedBytes: the text's size once escaped as a JSON string body, so `"`,
// `\` and control characters count as their escapes and non-ASCII as its UTF-8 bytes).
//
// Checked after the attempt is durably recorded; a text exactly at its limit passes, one byte
// over fails with child_output_cap. Nothing is ever truncated here.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

enum class OutputKind {
  kCandidate,    // kCandidateOutputMaxBytes (49,152)
  kEvaluator,    // kEvaluatorOutputMaxBytes (65,536); the repair child too
  kMerger,       // kMergerOutputMaxBytes (65,536)
  kDiagnostics,  // kDiagnosticsMaxBytes (8,192)
};

size_t OutputLimit(OutputKind kind);
// "candidate", "evaluator", "merger", "diagnostics".
std::string_view OutputKindName(OutputKind kind);

// Ok; child_event_invalid ("<kind> answer is empty") for an empty or white-space-only answer; or
// child_output_cap with the measured and the allowed size, for example
// "candidate output is 49,153 JSON-rendered UTF-8 bytes; the limit is 49,152".
Status CheckOutputContract(OutputKind kind, const std::string& text);

// 49152 -> "49,152": how prompts and messages print byte counts.
std::string GroupDigits(size_t value);

}  // namespace pi_fusion::workflow
