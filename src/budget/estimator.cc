#include "budget/estimator.h"

#include <algorithm>
#include <array>

#include "budget/budget_constants.h"

namespace pi_fusion::budget {

ByteClassCounts& ByteClassCounts::operator+=(const ByteClassCounts& other) {
  multibyte += other.multibyte;
  whitespace += other.whitespace;
  dense += other.dense;
  unknown_output_contract += other.unknown_output_contract;
  return *this;
}

ByteClassCounts& ByteClassCounts::operator-=(const ByteClassCounts& other) {
  multibyte -= other.multibyte;
  whitespace -= other.whitespace;
  dense -= other.dense;
  unknown_output_contract -= other.unknown_output_contract;
  return *this;
}

ByteClassCounts CountByteClasses(std::string_view text) {
  ByteClassCounts counts;
  for (unsigned char c : text) {
    if (c >= 0x80) {
      ++counts.multibyte;
    } else if (c == ' ' || (c >= '\t' && c <= '\r')) {  // \t \n \v \f \r
      ++counts.whitespace;
    } else {
      ++counts.dense;
    }
  }
  return counts;
}

Family FamilyForProvider(std::string_view provider) {
  if (provider == "anthropic") return Family::kAnthropic;
  if (provider == "openai-codex") return Family::kOpenAiCodex;
  return Family::kUnknown;
}

std::string_view FamilyName(Family family) {
  switch (family) {
    case Family::kAnthropic:
      return "anthropic";
    case Family::kOpenAiCodex:
      return "openai-codex";
    case Family::kUnknown:
      break;
  }
  return "unknown";
}

int64_t ConfiguredRateX100(Family family) {
  switch (family) {
    case Family::kAnthropic:
      return kAnthropicRateX100;
    case Family::kOpenAiCodex:
      return kOpenAiCodexRateX100;
    case Family::kUnknown:
      break;
  }
  return kUnknownRateX100;
}

std::string_view RateSourceName(RateSource source) {
  switch (source) {
    case RateSource::kCalibrated:
      return "calibrated";
    case RateSource::kConservativeSmallPrompt:
      return "conservative_small_prompt";
    case RateSource::kConservativeLowWhitespace:
      break;
  }
  return "conservative_low_whitespace";
}

RateChoice ChooseRate(Family family, const ByteClassCounts& counts) {
  RateChoice choice;
  choice.family = family;
  choice.configured_x100 = ConfiguredRateX100(family);
  const int64_t known = counts.known();
  if (known > 0) choice.whitespace_fraction_x10000 = counts.whitespace * kFractionScale / known;
  const int64_t conservative =
      std::max(kRateFloorX100, std::min(choice.configured_x100, kConservativeRateCapX100));
  choice.effective_x100 = conservative;
  if (known < kCalibrationMinKnownBytes) {
    choice.source = RateSource::kConservativeSmallPrompt;
  } else if (counts.whitespace * kFractionScale < kCalibrationMinWhitespaceX10000 * known) {
    // Compared exactly (no rounding): fraction >= 10/10000 <=> ws * 10000 >= 10 * known.
    choice.source = RateSource::kConservativeLowWhitespace;
  } else {
    choice.source = RateSource::kCalibrated;
    choice.effective_x100 = choice.configured_x100;
  }
  return choice;
}

std::string_view ByteClassName(ByteClass byte_class) {
  switch (byte_class) {
    case ByteClass::kDense:
      return "dense";
    case ByteClass::kMultibyte:
      return "multibyte";
    case ByteClass::kUnknownOutputContract:
      return "unknown_output_contract";
    case ByteClass::kWhitespace:
      break;
  }
  return "whitespace";
}

ByteClass DominantByteClass(const ByteClassCounts& counts) {
  const std::array<std::pair<ByteClass, int64_t>, 4> order = {{
      {ByteClass::kDense, counts.dense},
      {ByteClass::kMultibyte, counts.multibyte},
      {ByteClass::kUnknownOutputContract, counts.unknown_output_contract},
      {ByteClass::kWhitespace, counts.whitespace},
  }};
  auto best = order.begin();
  for (auto it = order.begin(); it != order.end(); ++it) {
    if (it->second > best->second) best = it;  // strict: ties keep the earlier class
  }
  return best->first;
}

int64_t TokensAtRate(int64_t bytes, int64_t rate_x100) {
  if (bytes <= 0) return 0;
  return (bytes * kRateScale + rate_x100 - 1) / rate_x100;
}

TokenEstimate EstimateTokens(Family family, const ByteClassCounts& counts) {
  TokenEstimate estimate;
  estimate.bytes = counts;
  estimate.rate = ChooseRate(family, counts);
  estimate.multibyte_tokens = TokensAtRate(counts.multibyte, kMultibyteRateX100);
  estimate.whitespace_tokens = TokensAtRate(counts.whitespace, estimate.rate.effective_x100);
  estimate.dense_tokens = TokensAtRate(counts.dense, estimate.rate.effective_x100);
  estimate.unknown_output_contract_tokens =
      TokensAtRate(counts.unknown_output_contract, kUnknownOutputContractRateX100);
  estimate.intercept_tokens = kInterceptTokens;
  estimate.tokens = estimate.multibyte_tokens + estimate.whitespace_tokens + estimate.dense_tokens +
                    estimate.unknown_output_contract_tokens + estimate.intercept_tokens;
  return estimate;
}

}  // namespace pi_fusion::budget
