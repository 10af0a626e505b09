// The worst case of one model request in US dollars, and the output limit a remaining allowance
// can pay for: the arithmetic of the hard cost cap (docs/budget.md, "Cost cap"), shared by the
// parent (each stage's minimum, the allowance it hands a child) and the child library (the
// admission of every provider request).
//
//   worst case = input tokens x worst input price + output limit x worst output price
//
// Prices are US dollars per million tokens, as Pi's model.cost gives them. The input side is an
// upper bound only when its token count is one (a byte-level BPE tokenizer never produces more
// tokens than bytes: one token per byte of the payload) and its price the highest any input
// token of the route can be billed at (uncached, cache read or cache write).
//
// Pure functions on values; thread-safe.
#pragma once

#include <cstdint>

namespace pi_fusion {

// The smallest output limit a request is sent with under a cost cap: room for a tool call or a
// short answer. A request the remaining allowance cannot give this many output tokens is not sent
// (cost_cap_exceeded); below it a model could only be cut off mid-answer and paid for nothing.
inline constexpr int64_t kMinUsefulOutputTokens = 1024;

// The highest price per million tokens any input token and any output token may be billed at.
struct WorstCasePrices {
  double input = 0;
  double output = 0;
};

// input_tokens x prices.input + output_tokens x prices.output, per million tokens.
// REQUIRES: tokens >= 0; prices finite and >= 0.
double WorstCaseUsd(int64_t input_tokens, int64_t output_tokens, const WorstCasePrices& prices);

// The largest output limit n with WorstCaseUsd(input_tokens, n) <= left_usd, at most
// `ceiling`; -1 when not even the input fits. An output price of 0 pays for `ceiling`.
// REQUIRES: input_tokens >= 0, ceiling >= 0; prices finite and >= 0.
int64_t AffordableOutputTokens(double left_usd, int64_t input_tokens, const WorstCasePrices& prices,
                               int64_t ceiling);

}  // namespace pi_fusion
