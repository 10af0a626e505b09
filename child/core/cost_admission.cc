#include "child/core/cost_admission.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "core/error_codes.h"
#include "core/number_text.h"

namespace pi_fusion::child {
namespace {

using nlohmann::json;
using Pointer = json::json_pointer;

// The output-limit field the admission may write, or the thinking it may turn off, can make the
// payload a few bytes longer than the one measured: counted as input up front.
constexpr int64_t kShapingSlackBytes = 64;

// Anthropic refuses a thinking budget below this, and one not below max_tokens.
constexpr int64_t kAnthropicMinThinkingBudget = 1024;

bool IsPrice(const json& value) {
  return value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() >= 0;
}

Status NoPrices(const std::string& what) {
  return Status::Error(
      kCostCapExceeded,
      "the route's model.cost " + what + ", so the cost cap cannot bound what its requests cost");
}

// Raises `out` to the rates of one price table (model.cost itself or one of its tiers).
Status AddRates(const json& rates, bool long_cache_writes, const std::string& where,
                WorstCasePrices* out) {
  if (!rates.is_object()) return NoPrices(where + " is not an object");
  for (const char* key : {"input", "output"}) {
    if (!rates.contains(key) || !IsPrice(rates[key])) {
      return NoPrices(where + " has no usable " + key + " price");
    }
  }
  const double input = rates["input"].get<double>();
  double worst_input = input;
  if (long_cache_writes) worst_input = std::max(worst_input, 2 * input);
  for (const char* key : {"cacheRead", "cacheWrite"}) {
    if (!rates.contains(key)) continue;
    if (!IsPrice(rates[key])) return NoPrices(where + " has an unusable " + key + " price");
    worst_input = std::max(worst_input, rates[key].get<double>());
  }
  out->input = std::max(out->input, worst_input);
  out->output = std::max(out->output, rates["output"].get<double>());
  return Status::Ok();
}

// Where `api` keeps its output limit: the fields set in `payload`, and the one to add when none
// is (nullopt: the child may not add one).
struct LimitFields {
  std::vector<Pointer> present;
  std::optional<Pointer> add;
};

bool Flag(const json& compat, const char* key, bool fallback) {
  if (!compat.is_object() || !compat.contains(key) || !compat[key].is_boolean()) return fallback;
  return compat[key].get<bool>();
}

LimitFields FieldsOf(const json& payload, std::string_view api, const json& compat) {
  std::vector<Pointer> candidates;
  std::optional<Pointer> add;
  if (api == "anthropic-messages") {
    candidates = {Pointer("/max_tokens")};
    add = Pointer("/max_tokens");
  } else if (api == "openai-completions") {
    candidates = {Pointer("/max_completion_tokens"), Pointer("/max_tokens")};
    const bool legacy = compat.is_object() && compat.value("maxTokensField", "") == "max_tokens";
    add = Pointer(legacy ? "/max_tokens" : "/max_completion_tokens");
  } else if (api == "openai-responses" || api == "azure-openai-responses" ||
             api == "openai-codex-responses") {
    candidates = {Pointer("/max_output_tokens")};
    if (Flag(compat, "supportsMaxOutputTokens", true)) add = Pointer("/max_output_tokens");
  } else if (api == "google-generative-ai" || api == "google-vertex") {
    candidates = {Pointer("/config/maxOutputTokens")};
    if (payload.contains("config") && payload["config"].is_object()) {
      add = Pointer("/config/maxOutputTokens");
    }
  }
  LimitFields fields;
  for (const Pointer& p : candidates) {
    if (payload.contains(p) && payload[p].is_number_integer()) fields.present.push_back(p);
  }
  fields.add = add;
  return fields;
}

// The request's output limit as Pi set it: the largest field set, else the model's own ceiling.
std::optional<int64_t> CurrentLimit(const json& payload, const LimitFields& fields,
                                    const RequestModel& model) {
  std::optional<int64_t> limit;
  for (const Pointer& p : fields.present) {
    limit = std::max(limit.value_or(0), payload[p].get<int64_t>());
  }
  return limit ? limit : model.max_tokens;
}

// Anthropic: budget_tokens must stay below max_tokens and at least 1,024; with no such budget the
// thinking is turned off (it would otherwise be refused by the provider, and its tokens are
// output the allowance pays for).
void FitAnthropicThinking(json* payload, int64_t limit) {
  if (!payload->contains("thinking") || !(*payload)["thinking"].is_object()) return;
  json& thinking = (*payload)["thinking"];
  if (!thinking.contains("budget_tokens") || !thinking["budget_tokens"].is_number_integer()) return;
  if (thinking["budget_tokens"].get<int64_t>() < limit) return;
  if (limit - 1 >= kAnthropicMinThinkingBudget) {
    thinking["budget_tokens"] = limit - 1;
  } else {
    *payload->find("thinking") = json{{"type", "disabled"}};
  }
}

std::string Tokens(int64_t n) {
  return GroupedDigits(static_cast<uint64_t>(std::max<int64_t>(n, 0)));
}

// Dollars with four decimals, as every cost text prints them.
std::string Usd(double usd) {
  char text[64];
  std::snprintf(text, sizeof text, "$%.4f", usd);
  return text;
}

}  // namespace

Result<WorstCasePrices> WorstCasePricesOf(const json& cost, bool long_cache_writes) {
  WorstCasePrices prices;
  if (cost.is_null()) return NoPrices("is missing");
  if (Status s = AddRates(cost, long_cache_writes, "", &prices); !s.ok()) return s;
  if (cost.contains("tiers")) {
    const json& tiers = cost["tiers"];
    if (!tiers.is_array()) return NoPrices("tiers is not a list");
    for (size_t i = 0; i < tiers.size(); ++i) {
      Status s = AddRates(tiers[i], long_cache_writes, "tier " + std::to_string(i + 1), &prices);
      if (!s.ok()) return s;
    }
  }
  return prices;
}

Admission AdmitRequest(json* payload, std::string_view api, const RequestModel& model,
                       const WorstCasePrices& prices, uint64_t payload_bytes, double left_usd) {
  const int64_t input = static_cast<int64_t>(std::min<uint64_t>(
                            payload_bytes, std::numeric_limits<int64_t>::max() / 2)) +
                        kShapingSlackBytes;
  const LimitFields fields = FieldsOf(*payload, api, model.compat);
  const std::optional<int64_t> current = CurrentLimit(*payload, fields, model);
  const bool settable = !fields.present.empty() || fields.add.has_value();
  Admission out;
  const std::string left = Usd(std::max(left_usd, 0.0)) + " left of the child's allowance";
  if (current) {
    out.worst_case_usd = WorstCaseUsd(input, *current, prices);
    if (out.worst_case_usd <= left_usd) {
      out.send = true;
      return out;
    }
  }
  const int64_t ceiling = current.value_or(std::numeric_limits<int32_t>::max());
  const int64_t affordable = AffordableOutputTokens(left_usd, input, prices, ceiling);
  if (!settable || affordable < kMinUsefulOutputTokens) {
    const std::string why =
        !settable ? (current ? "its output limit of " + Tokens(*current) +
                                   " tokens cannot be lowered on the api " + std::string(api)
                             : "its output limit is unknown (no limit in the payload and no "
                               "model.maxTokens)")
        : affordable < 0
            ? "not even its " + Tokens(input) + " input tokens fit"
            : "that pays for only " + Tokens(affordable) +
                  " output tokens, below the useful floor of " + Tokens(kMinUsefulOutputTokens);
    out.worst_case_usd = WorstCaseUsd(input, std::max<int64_t>(affordable, 0), prices);
    out.refusal = "the cost cap stopped a model request of " + Tokens(input) +
                  " input tokens (its payload's bytes) before it was sent: " + left + ", and " +
                  why;
    return out;
  }
  const std::vector<Pointer> targets =
      fields.present.empty() ? std::vector<Pointer>{*fields.add} : fields.present;
  for (const Pointer& p : targets) (*payload)[p] = affordable;
  if (api == "anthropic-messages") FitAnthropicThinking(payload, affordable);
  out.send = true;
  out.lowered_to = affordable;
  out.worst_case_usd = WorstCaseUsd(input, affordable, prices);
  return out;
}

}  // namespace pi_fusion::child
