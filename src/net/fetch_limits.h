// The fetcher's limits, defined once (spec: seed-fusion_research.md, "Fetch hygiene").
// Docs and tests read these rather than restating the numbers.
#pragma once

#include <chrono>
#include <cstddef>

#include "core/limits.h"

namespace pi_fusion::net {

// Response body bytes, counted after content decoding (so a compression bomb cannot hide).
inline constexpr size_t kMaxResponseBytes = 4 * 1024 * 1024;
// Extracted text or Markdown handed back to the caller: kMaxExtractedTextBytes (core/limits.h),
// shared with the extractor's default and the child's fusion_web_fetch.
// Redirects followed; the next one fails with redirect_limit.
inline constexpr int kMaxRedirects = 5;
// One deadline over DNS, every redirect hop, the transfer and extraction.
inline constexpr std::chrono::milliseconds kFetchDeadline{90'000};

}  // namespace pi_fusion::net
