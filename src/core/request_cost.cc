#include "core/request_cost.h"

#include <cmath>

namespace pi_fusion {
namespace {

constexpr double kTokensPerPriceUnit = 1'000'000.0;

}  // namespace

double WorstCaseUsd(int64_t input_tokens, int64_t output_tokens, const WorstCasePrices& prices) {
  return (static_cast<double>(input_tokens) * prices.input +
          static_cast<double>(output_tokens) * prices.output) /
         kTokensPerPriceUnit;
}

int64_t AffordableOutputTokens(double left_usd, int64_t input_tokens, const WorstCasePrices& prices,
                               int64_t ceiling) {
  if (!(WorstCaseUsd(input_tokens, 0, prices) <= left_usd)) return -1;
  if (prices.output <= 0) return ceiling;
  const double room =
      (left_usd - WorstCaseUsd(input_tokens, 0, prices)) * kTokensPerPriceUnit / prices.output;
  int64_t n =
      room >= static_cast<double>(ceiling) ? ceiling : static_cast<int64_t>(std::floor(room));
  // The division rounds; the bound must hold as WorstCaseUsd computes it.
  while (n > 0 && WorstCaseUsd(input_tokens, n, prices) > left_usd) --n;
  return n;
}

}  // namespace pi_fusion
