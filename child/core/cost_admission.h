// The admission of one provider request under the child's cost allowance (the hard cost cap,
// docs/budget.md "Cost cap"): its worst case is the payload's bytes as input tokens (one token per
// byte, a bound no byte-level tokenizer passes) at the route's highest input price, plus its
// output limit at the highest output price. A request whose worst case does not fit what is left
// of the allowance gets a lower output limit, written into the payload, when the api lets the
// child set one and the limit stays at or above kMinUsefulOutputTokens; otherwise it is not sent.
//
// The output limit per api (the payload field Pi's provider code fills):
//   anthropic-messages            max_tokens (a thinking budget_tokens is kept below it, or the
//                                 thinking turned off when no budget of at least 1,024 fits)
//   openai-completions            max_completion_tokens and/or max_tokens (when neither is set:
//                                 model.compat.maxTokensField, else max_completion_tokens)
//   openai-responses, azure-openai-responses, openai-codex-responses
//                                 max_output_tokens (not added when model.compat says
//                                 supportsMaxOutputTokens is false)
//   google-generative-ai, google-vertex
//                                 config.maxOutputTokens
// Without a field the provider's own ceiling, model.maxTokens, is the request's output limit; an
// api not listed is admitted only when that ceiling fits as it is.
//
// Pure functions on values; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/request_cost.h"
#include "pi_fusion/status.h"

namespace pi_fusion::child {

// What ctx.model says that the admission needs.
struct RequestModel {
  nlohmann::json cost;                // ctx.model.cost as JSON; null when absent
  std::optional<int64_t> max_tokens;  // ctx.model.maxTokens, when a positive integer
  nlohmann::json compat;              // ctx.model.compat as JSON; null when absent
};

// The highest price per million tokens of any input token (input, cacheRead, cacheWrite, and
// twice the input price for a one-hour cache write when `long_cache_writes`) and of any output
// token, over model.cost and its `tiers`. cost_cap_exceeded when a price is missing, not a
// number, negative or not finite: a route without prices cannot be capped.
Result<WorstCasePrices> WorstCasePricesOf(const nlohmann::json& cost, bool long_cache_writes);

struct Admission {
  bool send = false;
  std::optional<int64_t> lowered_to;  // the output limit written into the payload, when lowered
  double worst_case_usd = 0;          // of the request as it is sent (or as it was refused)
  std::string refusal;                // why it is not sent (when !send)
};

// Admits (and, when needed, shapes) `payload` for `api`, with `left_usd` of the allowance left.
// `payload_bytes` is the size of the payload as it will be sent.
// REQUIRES: payload is a JSON object; left_usd finite.
Admission AdmitRequest(nlohmann::json* payload, std::string_view api, const RequestModel& model,
                       const WorstCasePrices& prices, uint64_t payload_bytes, double left_usd);

}  // namespace pi_fusion::child
