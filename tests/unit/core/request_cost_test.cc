// The arithmetic of the hard cost cap: a request's worst case, and the output limit an allowance
// pays for, never one token more.
#include <catch2/catch.hpp>

#include "core/request_cost.h"

namespace pi_fusion {
namespace {

// $3 input, $15 output per million tokens.
constexpr WorstCasePrices kPrices{3.0, 15.0};

TEST_CASE("RequestCost: the worst case is input and output tokens at their prices per million") {
  CHECK(WorstCaseUsd(0, 0, kPrices) == 0);
  CHECK(WorstCaseUsd(1'000'000, 0, kPrices) == Approx(3.0));
  CHECK(WorstCaseUsd(200'000, 64'000, kPrices) == Approx(0.6 + 0.96));
}

TEST_CASE("RequestCost: the affordable output limit is the largest that fits, exactly") {
  // $0.01 left, 1,000 input tokens ($0.003): $0.007 pays for 466.67 output tokens -> 466.
  const int64_t n = AffordableOutputTokens(0.01, 1000, kPrices, 64'000);
  CHECK(n == 466);
  CHECK(WorstCaseUsd(1000, n, kPrices) <= 0.01);
  CHECK(WorstCaseUsd(1000, n + 1, kPrices) > 0.01);
}

TEST_CASE("RequestCost: the limit never passes the ceiling, and an unpaid input gives -1") {
  CHECK(AffordableOutputTokens(100.0, 1000, kPrices, 8192) == 8192);
  CHECK(AffordableOutputTokens(0.002, 1000, kPrices, 8192) == -1);  // the input alone is $0.003
  CHECK(AffordableOutputTokens(0.003, 1000, kPrices, 8192) == 0);   // exactly the input
  CHECK(AffordableOutputTokens(-1.0, 0, kPrices, 8192) == -1);      // an overspent allowance
}

TEST_CASE("RequestCost: free output is limited only by the ceiling; free input by nothing") {
  CHECK(AffordableOutputTokens(0.003, 1000, {3.0, 0.0}, 4096) == 4096);
  CHECK(AffordableOutputTokens(0.0, 1'000'000, {0.0, 0.0}, 4096) == 4096);
  CHECK(AffordableOutputTokens(0.0, 1'000'000, {0.0, 15.0}, 4096) == 0);
}

TEST_CASE("RequestCost: tiny prices and large allowances keep the bound under rounding") {
  for (double left : {1e-9, 0.1, 0.3, 1.0 / 3, 7.77, 1234.5678}) {
    for (WorstCasePrices prices : {WorstCasePrices{0.1, 0.3}, WorstCasePrices{0.5, 1.5},
                                   WorstCasePrices{3.0, 15.0}, WorstCasePrices{15.0, 75.0}}) {
      const int64_t n = AffordableOutputTokens(left, 777, prices, int64_t{1} << 40);
      if (n < 0) continue;
      CHECK(WorstCaseUsd(777, n, prices) <= left);
    }
  }
}

}  // namespace
}  // namespace pi_fusion
