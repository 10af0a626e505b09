// The admission of one provider request under a cost allowance: prices from model.cost, the
// output limit of each api lowered to what the allowance pays for, and refusals below the floor.
#include <catch2/catch.hpp>

#include "child/core/cost_admission.h"
#include "core/error_codes.h"

namespace pi_fusion::child {
namespace {

using Catch::Matchers::Contains;
using nlohmann::json;

// $3 input, $15 output per million tokens.
constexpr WorstCasePrices kPrices{3.0, 15.0};
// With the admission's 64 bytes of room for the field it writes: 1,000 input tokens, $0.003.
constexpr uint64_t kBytes = 936;

RequestModel Model(std::optional<int64_t> max_tokens = 64000, json compat = nullptr) {
  return {json{{"input", 3}, {"output", 15}}, max_tokens, std::move(compat)};
}

TEST_CASE("CostAdmission: the worst prices are the highest over model.cost and its tiers") {
  const json cost = {{"input", 3},
                     {"output", 15},
                     {"cacheRead", 0.3},
                     {"cacheWrite", 3.75},
                     {"tiers",
                      {{{"inputTokensAbove", 200000},
                        {"input", 6},
                        {"output", 22.5},
                        {"cacheRead", 0.6},
                        {"cacheWrite", 7.5}}}}};
  Result<WorstCasePrices> prices = WorstCasePricesOf(cost, false);
  REQUIRE(prices.ok());
  CHECK(prices->input == 7.5);  // the tier's cache write
  CHECK(prices->output == 22.5);
  // A one-hour cache write bills twice the input price (Pi's calculateCost).
  Result<WorstCasePrices> long_writes =
      WorstCasePricesOf({{"input", 3}, {"output", 15}, {"cacheWrite", 3.75}}, true);
  REQUIRE(long_writes.ok());
  CHECK(long_writes->input == 6.0);
}

TEST_CASE("CostAdmission: a route without usable prices cannot be capped") {
  for (const json& cost :
       {json(nullptr), json::object(), json{{"input", 3}}, json{{"input", -1}, {"output", 15}},
        json{{"input", 3}, {"output", "15"}},
        json{{"input", 3}, {"output", 15}, {"cacheWrite", -2}},
        json{{"input", 3}, {"output", 15}, {"tiers", {{{"input", 3}}}}}}) {
    Result<WorstCasePrices> prices = WorstCasePricesOf(cost, false);
    REQUIRE_FALSE(prices.ok());
    CHECK(prices.status().code() == kCostCapExceeded);
    CHECK_THAT(prices.status().message(), Contains("the cost cap cannot bound"));
  }
}

TEST_CASE("CostAdmission: a request whose worst case fits is sent unchanged") {
  json payload = {{"model", "m"}, {"max_tokens", 1000}};
  // 1,000 input + 1,000 output tokens: $0.003 + $0.015.
  Admission a = AdmitRequest(&payload, "anthropic-messages", Model(), kPrices, kBytes, 0.018);
  CHECK(a.send);
  CHECK_FALSE(a.lowered_to);
  CHECK(a.worst_case_usd == Approx(0.018));
  CHECK(payload == json({{"model", "m"}, {"max_tokens", 1000}}));
}

TEST_CASE("CostAdmission: anthropic max_tokens is lowered to what is left, and thinking below it") {
  json payload = {{"max_tokens", 64000},
                  {"thinking", {{"type", "enabled"}, {"budget_tokens", 16000}}}};
  // $0.03 left: $0.027 pays for 1,800 output tokens.
  Admission a = AdmitRequest(&payload, "anthropic-messages", Model(), kPrices, kBytes, 0.03);
  REQUIRE(a.send);
  CHECK(a.lowered_to == 1800);
  CHECK(payload["max_tokens"] == 1800);
  CHECK(payload["thinking"] == json({{"type", "enabled"}, {"budget_tokens", 1799}}));
  CHECK(a.worst_case_usd <= 0.03);
}

TEST_CASE("CostAdmission: anthropic thinking with no room for its 1,024-token minimum is off") {
  json payload = {{"max_tokens", 64000},
                  {"thinking", {{"type", "enabled"}, {"budget_tokens", 4000}}}};
  // Left: the input and 1,024.5 output tokens; a budget of 1,024 needs a max_tokens of 1,025.
  Admission a = AdmitRequest(&payload, "anthropic-messages", Model(), kPrices, kBytes,
                             0.003 + 1024.5 * 15e-6);
  REQUIRE(a.send);
  CHECK(a.lowered_to == 1024);
  CHECK(payload["thinking"] == json({{"type", "disabled"}}));
  // Adaptive thinking counts toward max_tokens: nothing to change.
  json adaptive = {{"max_tokens", 64000}, {"thinking", {{"type", "adaptive"}}}};
  CHECK(AdmitRequest(&adaptive, "anthropic-messages", Model(), kPrices, kBytes, 0.03).send);
  CHECK(adaptive["thinking"] == json({{"type", "adaptive"}}));
}

TEST_CASE("CostAdmission: below the useful floor the request is not sent") {
  json payload = {{"max_tokens", 64000}};
  // $0.0183 left pays for 1,020 output tokens: under 1,024.
  Admission a = AdmitRequest(&payload, "anthropic-messages", Model(), kPrices, kBytes, 0.0183);
  CHECK_FALSE(a.send);
  CHECK(payload["max_tokens"] == 64000);  // untouched
  CHECK(a.refusal ==
        "the cost cap stopped a model request of 1,000 input tokens (its payload's bytes) "
        "before it was sent: $0.0183 left of the child's allowance, and that pays for only "
        "1,020 output tokens, below the useful floor of 1,024");
  // Not even the input.
  Admission none = AdmitRequest(&payload, "anthropic-messages", Model(), kPrices, kBytes, 0.002);
  CHECK_FALSE(none.send);
  CHECK_THAT(none.refusal, Contains("$0.0020 left of the child's allowance, and not even its "
                                    "1,000 input tokens fit"));
}

TEST_CASE("CostAdmission: openai-completions lowers the fields Pi set, or adds the model's own") {
  json both = {{"max_completion_tokens", 16384}, {"max_tokens", 16384}};
  REQUIRE(AdmitRequest(&both, "openai-completions", Model(), kPrices, kBytes, 0.03).send);
  CHECK(both == json({{"max_completion_tokens", 1800}, {"max_tokens", 1800}}));

  // Neither set: the provider's ceiling is model.maxTokens; the field is added.
  json none = {{"model", "m"}};
  Admission a = AdmitRequest(&none, "openai-completions", Model(16384), kPrices, kBytes, 0.03);
  REQUIRE(a.send);
  CHECK(none == json({{"model", "m"}, {"max_completion_tokens", 1800}}));
  json legacy = {{"model", "m"}};
  REQUIRE(AdmitRequest(&legacy, "openai-completions",
                       Model(16384, {{"maxTokensField", "max_tokens"}}), kPrices, kBytes, 0.03)
              .send);
  CHECK(legacy == json({{"model", "m"}, {"max_tokens", 1800}}));
  // Within the allowance as it is: nothing added.
  json fits = {{"model", "m"}};
  REQUIRE(AdmitRequest(&fits, "openai-completions", Model(1000), kPrices, kBytes, 0.03).send);
  CHECK(fits == json({{"model", "m"}}));
}

TEST_CASE("CostAdmission: the responses apis use max_output_tokens, unless the model refuses it") {
  for (const char* api : {"openai-responses", "azure-openai-responses", "openai-codex-responses"}) {
    json set = {{"max_output_tokens", 32000}};
    REQUIRE(AdmitRequest(&set, api, Model(), kPrices, kBytes, 0.03).send);
    CHECK(set == json({{"max_output_tokens", 1800}}));
    json absent = json::object();
    REQUIRE(AdmitRequest(&absent, api, Model(), kPrices, kBytes, 0.03).send);
    CHECK(absent == json({{"max_output_tokens", 1800}}));
  }
  const json no_field = {{"supportsMaxOutputTokens", false}};
  json absent = json::object();
  Admission refused =
      AdmitRequest(&absent, "openai-responses", Model(64000, no_field), kPrices, kBytes, 0.03);
  CHECK_FALSE(refused.send);
  CHECK_THAT(refused.refusal,
             Contains("its output limit of 64,000 tokens cannot be lowered on the api "
                      "openai-responses"));
  CHECK(absent == json::object());
  // Its own ceiling within the allowance: sent as it is.
  CHECK(
      AdmitRequest(&absent, "openai-responses", Model(1800, no_field), kPrices, kBytes, 0.03).send);
}

TEST_CASE("CostAdmission: google keeps its limit in config.maxOutputTokens") {
  json payload = {{"model", "g"}, {"config", {{"maxOutputTokens", 65536}}}};
  REQUIRE(AdmitRequest(&payload, "google-generative-ai", Model(), kPrices, kBytes, 0.03).send);
  CHECK(payload["config"]["maxOutputTokens"] == 1800);
}

TEST_CASE("CostAdmission: an api the child cannot shape is sent only when its ceiling fits") {
  json payload = {{"inferenceConfig", {{"maxTokens", 8000}}}};
  CHECK(AdmitRequest(&payload, "bedrock-converse-stream", Model(1800), kPrices, kBytes, 0.03).send);
  Admission refused =
      AdmitRequest(&payload, "bedrock-converse-stream", Model(8000), kPrices, kBytes, 0.03);
  CHECK_FALSE(refused.send);
  CHECK_THAT(refused.refusal, Contains("cannot be lowered on the api bedrock-converse-stream"));
  Admission unknown =
      AdmitRequest(&payload, "bedrock-converse-stream", Model(std::nullopt), kPrices, kBytes, 1.0);
  CHECK_FALSE(unknown.send);
  CHECK_THAT(unknown.refusal, Contains("its output limit is unknown"));
}

}  // namespace
}  // namespace pi_fusion::child
