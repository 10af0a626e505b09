// Token estimator: an upper-bound forecast of a prompt's input tokens from its bytes alone.
//
// Every byte falls in one class: multibyte (a byte >= 0x80, part of a non-ASCII UTF-8
// sequence), ASCII white space (space, \t, \n, \v, \f, \r), dense (any other ASCII byte), or
// unknown_output_contract (bytes reserved for upstream output that does not exist yet). Each
// class is rated separately and the estimate is
//     sum over classes of ceil(bytes * 100 / rate_x100) + 512.
// Rates (bytes per token x 100), see docs/budget.md:
//   multibyte, unknown_output_contract: always 100 (one token per byte: a provable bound);
//   white space, dense: the route family's configured rate (anthropic 173, openai-codex 289,
//     unknown 100) when the known bytes are inside the calibration domain (>= 50 KiB and at
//     least 10/10000 white space); otherwise conservative max(100, min(configured, 200)).
// Pure functions on values; thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "budget/budget_constants.h"

namespace pi_fusion::budget {

// Byte counts per class. Counts are additive: the counts of a concatenation are the sum of the
// counts of its parts, which is what lets the planner subtract a request from a prompt.
struct ByteClassCounts {
  int64_t multibyte = 0;
  int64_t whitespace = 0;
  int64_t dense = 0;
  int64_t unknown_output_contract = 0;

  // Bytes whose content is known (everything but unknown_output_contract).
  int64_t known() const { return multibyte + whitespace + dense; }
  int64_t total() const { return known() + unknown_output_contract; }
  ByteClassCounts& operator+=(const ByteClassCounts& other);
  ByteClassCounts& operator-=(const ByteClassCounts& other);
  bool operator==(const ByteClassCounts&) const = default;
};

// Counts the classes of `text`'s bytes (unknown_output_contract stays 0).
ByteClassCounts CountByteClasses(std::string_view text);

// Calibration families. A route's family comes from its provider (FamilyForProvider).
enum class Family { kAnthropic, kOpenAiCodex, kUnknown };

// "anthropic" -> kAnthropic, "openai-codex" -> kOpenAiCodex, anything else -> kUnknown.
Family FamilyForProvider(std::string_view provider);
std::string_view FamilyName(Family family);  // "anthropic" | "openai-codex" | "unknown"
int64_t ConfiguredRateX100(Family family);

// Why the ASCII classes got the rate they got.
enum class RateSource {
  kCalibrated,                 // inside the calibration domain
  kConservativeSmallPrompt,    // fewer than 50 KiB known bytes
  kConservativeLowWhitespace,  // >= 50 KiB but white space below 10/10000 (dense payload)
};
std::string_view RateSourceName(RateSource source);  // "calibrated", ...

struct RateChoice {
  Family family = Family::kUnknown;
  int64_t configured_x100 = kUnknownRateX100;
  int64_t effective_x100 = kUnknownRateX100;  // rate of the white-space and dense classes
  RateSource source = RateSource::kConservativeSmallPrompt;
  // floor(whitespace * 10000 / known), or -1 when there are no known bytes.
  int64_t whitespace_fraction_x10000 = -1;
};

// Chooses the ASCII rate for `counts` (only the known classes matter).
RateChoice ChooseRate(Family family, const ByteClassCounts& counts);

// The class that holds the most bytes; ties go to the first in this order: dense,
// multibyte, unknown_output_contract, whitespace. A diagnostic, not an input to the estimate.
enum class ByteClass { kDense, kMultibyte, kUnknownOutputContract, kWhitespace };
std::string_view ByteClassName(ByteClass byte_class);  // "dense", "multibyte", ...
ByteClass DominantByteClass(const ByteClassCounts& counts);

struct TokenEstimate {
  ByteClassCounts bytes;
  RateChoice rate;
  int64_t multibyte_tokens = 0;
  int64_t whitespace_tokens = 0;
  int64_t dense_tokens = 0;
  int64_t unknown_output_contract_tokens = 0;
  int64_t intercept_tokens = 0;
  int64_t tokens = 0;  // the sum of the above: the forecast
};

// ceil(bytes * kRateScale / rate_x100). REQUIRES: bytes >= 0, rate_x100 > 0.
int64_t TokensAtRate(int64_t bytes, int64_t rate_x100);

// The estimate for `counts` on a route of `family`. REQUIRES: every count >= 0.
TokenEstimate EstimateTokens(Family family, const ByteClassCounts& counts);

}  // namespace pi_fusion::budget
