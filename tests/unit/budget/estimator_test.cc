// Estimator vectors, each computed by hand from the formula in budget/estimator.h:
// tokens = sum over classes of ceil(bytes * 100 / rate_x100) + 512.
#include <catch2/catch.hpp>

#include <string>

#include "budget/budget_constants.h"
#include "budget/estimator.h"

namespace pi_fusion::budget {
namespace {

ByteClassCounts Counts(int64_t multibyte, int64_t whitespace, int64_t dense, int64_t unknown = 0) {
  ByteClassCounts c;
  c.multibyte = multibyte;
  c.whitespace = whitespace;
  c.dense = dense;
  c.unknown_output_contract = unknown;
  return c;
}

TEST_CASE("Estimator: classifies every byte into exactly one class") {
  // "a b\n" + "é" (2 bytes) + "\t\v\f\r" + DEL + NUL.
  const std::string text = std::string("a b\n\xC3\xA9\t\v\f\r\x7F") + '\0';
  const ByteClassCounts c = CountByteClasses(text);
  CHECK(c.multibyte == 2);
  CHECK(c.whitespace == 6);  // space, \n, \t, \v, \f, \r
  CHECK(c.dense == 4);       // a, b, DEL, NUL
  CHECK(c.unknown_output_contract == 0);
  CHECK(c.known() == static_cast<int64_t>(text.size()));
}

TEST_CASE("Estimator: counts are additive, so a part can be subtracted") {
  ByteClassCounts whole = CountByteClasses("hello world \xE2\x82\xAC");
  whole -= CountByteClasses("world ");
  CHECK(whole == CountByteClasses("hello \xE2\x82\xAC"));
}

TEST_CASE("Estimator: TokensAtRate is a ceiling division") {
  CHECK(TokensAtRate(0, 173) == 0);
  CHECK(TokensAtRate(1, 173) == 1);
  CHECK(TokensAtRate(173, 173) == 100);
  CHECK(TokensAtRate(174, 173) == 101);
  CHECK(TokensAtRate(289, 289) == 100);
  CHECK(TokensAtRate(7, 100) == 7);
}

TEST_CASE("Estimator: families come from the provider") {
  CHECK(FamilyForProvider("anthropic") == Family::kAnthropic);
  CHECK(FamilyForProvider("openai-codex") == Family::kOpenAiCodex);
  CHECK(FamilyForProvider("openai") == Family::kUnknown);
  CHECK(FamilyForProvider("local") == Family::kUnknown);
  CHECK(ConfiguredRateX100(Family::kAnthropic) == 173);
  CHECK(ConfiguredRateX100(Family::kOpenAiCodex) == 289);
  CHECK(ConfiguredRateX100(Family::kUnknown) == 100);
}

TEST_CASE("Estimator: rate choice table") {
  struct Row {
    Family family;
    ByteClassCounts counts;
    int64_t effective;
    RateSource source;
  };
  const int64_t big = kCalibrationMinKnownBytes;  // 51200
  const Row rows[] = {
      // Small prompts: conservative max(100, min(configured, 200)).
      {Family::kAnthropic, Counts(0, 100, 900), 173, RateSource::kConservativeSmallPrompt},
      {Family::kOpenAiCodex, Counts(0, 100, 900), 200, RateSource::kConservativeSmallPrompt},
      {Family::kUnknown, Counts(0, 100, 900), 100, RateSource::kConservativeSmallPrompt},
      {Family::kOpenAiCodex, Counts(0, 10000, big - 10001), 200,
       RateSource::kConservativeSmallPrompt},  // one byte short of 50 KiB
      // Exactly 50 KiB with enough white space: calibrated.
      {Family::kOpenAiCodex, Counts(0, 10000, big - 10000), 289, RateSource::kCalibrated},
      {Family::kAnthropic, Counts(0, 10000, big - 10000), 173, RateSource::kCalibrated},
      // White space fraction edge: 52/51200 >= 10/10000, 51/51200 is below.
      {Family::kOpenAiCodex, Counts(0, 52, big - 52), 289, RateSource::kCalibrated},
      {Family::kOpenAiCodex, Counts(0, 51, big - 51), 200, RateSource::kConservativeLowWhitespace},
      // Multibyte bytes count as known bytes for the gate.
      {Family::kOpenAiCodex, Counts(big - 1000, 1000, 0), 289, RateSource::kCalibrated},
      // Unknown output never moves a prompt into the calibration domain.
      {Family::kOpenAiCodex, Counts(0, 100, 900, 1 << 20), 200,
       RateSource::kConservativeSmallPrompt},
  };
  for (const Row& row : rows) {
    const RateChoice choice = ChooseRate(row.family, row.counts);
    INFO(FamilyName(row.family) << " known=" << row.counts.known()
                                << " ws=" << row.counts.whitespace);
    CHECK(choice.effective_x100 == row.effective);
    CHECK(choice.source == row.source);
    CHECK(choice.configured_x100 == ConfiguredRateX100(row.family));
  }
}

TEST_CASE("Estimator: hand-computed vectors") {
  SECTION("anthropic, small prompt: ASCII at 1.73, multibyte at 1.00") {
    const TokenEstimate e = EstimateTokens(Family::kAnthropic, Counts(10, 20, 300));
    CHECK(e.multibyte_tokens == 10);   // 10 * 100 / 100
    CHECK(e.whitespace_tokens == 12);  // ceil(2000 / 173) = ceil(11.56)
    CHECK(e.dense_tokens == 174);      // ceil(30000 / 173) = ceil(173.41)
    CHECK(e.intercept_tokens == 512);
    CHECK(e.tokens == 708);
  }
  SECTION("openai-codex, calibrated large prompt at 2.89") {
    const TokenEstimate e = EstimateTokens(Family::kOpenAiCodex, Counts(0, 10000, 60000));
    CHECK(e.rate.source == RateSource::kCalibrated);
    CHECK(e.rate.whitespace_fraction_x10000 == 1428);  // floor(10000 * 10000 / 70000)
    CHECK(e.dense_tokens == 20762);                    // ceil(6,000,000 / 289)
    CHECK(e.whitespace_tokens == 3461);                // ceil(1,000,000 / 289)
    CHECK(e.tokens == 20762 + 3461 + 512);
  }
  SECTION("unknown output contract bytes are one token per byte") {
    const TokenEstimate e =
        EstimateTokens(Family::kOpenAiCodex, Counts(0, 0, 0, kEvaluationReserveBytes));
    CHECK(e.unknown_output_contract_tokens == 147456);
    CHECK(e.tokens == 147456 + 512);
  }
  SECTION("the empty prompt costs the intercept") {
    const TokenEstimate e = EstimateTokens(Family::kAnthropic, ByteClassCounts{});
    CHECK(e.tokens == 512);
    CHECK(e.rate.whitespace_fraction_x10000 == -1);
  }
}

TEST_CASE("Estimator: dominant byte class, ties in fixed order") {
  CHECK(DominantByteClass(Counts(5, 1, 4)) == ByteClass::kMultibyte);
  CHECK(DominantByteClass(Counts(4, 1, 4)) == ByteClass::kDense);
  CHECK(DominantByteClass(Counts(0, 9, 1, 9)) == ByteClass::kUnknownOutputContract);
  CHECK(DominantByteClass(Counts(0, 9, 1)) == ByteClass::kWhitespace);
  CHECK(ByteClassName(ByteClass::kDense) == "dense");
}

}  // namespace
}  // namespace pi_fusion::budget
