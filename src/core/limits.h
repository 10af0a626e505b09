// Caps that more than one layer enforces, spelled once. A cap owned by one layer stays in that
// layer's constants header (store/constants.h, net/fetch_limits.h, ...); only a number two layers
// must agree on lives here.
//
// Sources: spec/CONTRACTS.md ("Budget": output caps measured on JSON-escaped text) and
// seed-fusion_research.md ("Fetch hygiene": extracted output capped at 32 KiB).
#pragma once

#include <cstddef>

namespace pi_fusion {

// Output contracts, in JSON-rendered UTF-8 bytes (pi_fusion::JsonRenderedBytes). The budget
// reserves room for them, the prompts disclose them, the workflow checks every stage's answer
// against them, and the child library holds a candidate to its cap in its own session (oversize
// compression) while the parent-side protocol verifier re-checks it.
inline constexpr size_t kCandidateOutputMaxBytes = 48 * 1024;  // 49,152
inline constexpr size_t kEvaluatorOutputMaxBytes = 64 * 1024;  // also the evaluator-repair child
inline constexpr size_t kMergerOutputMaxBytes = 64 * 1024;
inline constexpr size_t kDiagnosticsMaxBytes = 8 * 1024;

// Extracted text or Markdown a fetch hands back: the fetcher (net) cuts to it, the extractor
// (`pi-fusion extract`) defaults to it, and fusion_web_fetch in the child enforces it again.
inline constexpr size_t kMaxExtractedTextBytes = 32 * 1024;  // 32,768

}  // namespace pi_fusion
