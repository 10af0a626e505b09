#include "store/usage.h"

#include <cmath>
#include <string>

#include "core/durable_file.h"
#include "store/json_util.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

// Reads a token count; Pi's JavaScript numbers may arrive as integral floats.
std::optional<uint64_t> TokenCount(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return v.get<uint64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d >= 0 && d < 9.0e15 && std::floor(d) == d) {
      return static_cast<uint64_t>(d);
    }
  }
  return std::nullopt;
}

std::optional<double> CostValue(const json& v) {
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  if (!std::isfinite(d) || d < 0) return std::nullopt;
  return d;
}

uint64_t ReadTokens(FieldReader& r, const char* key) {
  const json& v = r.Value(key);
  auto n = TokenCount(v);
  if (!n && r.Has(key)) r.Fail(std::string("\"") + key + "\" is not a token count");
  return n.value_or(0);
}

double ReadCost(FieldReader& r, const char* key) {
  const json& v = r.Value(key);
  auto d = CostValue(v);
  if (!d && r.Has(key)) r.Fail(std::string("\"cost.") + key + "\" is not a non-negative number");
  return d.value_or(0);
}

Result<UsageCost> CostFromJson(const json& value, const std::string& where) {
  FieldReader r(value, where + ".cost");
  UsageCost cost;
  cost.input = ReadCost(r, "input");
  cost.output = ReadCost(r, "output");
  cost.cache_read = ReadCost(r, "cacheRead");
  cost.cache_write = ReadCost(r, "cacheWrite");
  cost.total = ReadCost(r, "total");
  if (r.Has("totalFromProvider")) cost.total_from_provider = r.Bool("totalFromProvider");
  Status s = r.Finish();
  if (!s.ok()) return s;
  return cost;
}

void AddOptional(std::optional<uint64_t>& sum, const std::optional<uint64_t>& part) {
  if (part) sum = sum.value_or(0) + *part;
}

}  // namespace

Result<Usage> UsageFromJson(const json& value, std::string_view where_view) {
  const std::string where(where_view);
  FieldReader r(value, where);
  Usage usage;
  usage.input = ReadTokens(r, "input");
  usage.output = ReadTokens(r, "output");
  usage.cache_read = ReadTokens(r, "cacheRead");
  usage.cache_write = ReadTokens(r, "cacheWrite");
  usage.total_tokens = ReadTokens(r, "totalTokens");
  if (r.Has("cacheWrite1h")) usage.cache_write_1h = ReadTokens(r, "cacheWrite1h");
  if (r.Has("reasoning")) usage.reasoning = ReadTokens(r, "reasoning");
  const json& cost = r.Object("cost");
  Status s = r.Finish();
  if (!s.ok()) return s;
  auto parsed_cost = CostFromJson(cost, where);
  if (!parsed_cost.ok()) return parsed_cost.status();
  usage.cost = parsed_cost.value();
  return usage;
}

json UsageToJson(const Usage& u) {
  json cost = {{"input", u.cost.input},
               {"output", u.cost.output},
               {"cacheRead", u.cost.cache_read},
               {"cacheWrite", u.cost.cache_write},
               {"total", u.cost.total}};
  if (u.cost.total_from_provider) cost["totalFromProvider"] = *u.cost.total_from_provider;
  json out = {{"input", u.input},
              {"output", u.output},
              {"cacheRead", u.cache_read},
              {"cacheWrite", u.cache_write},
              {"totalTokens", u.total_tokens},
              {"cost", std::move(cost)}};
  if (u.cache_write_1h) out["cacheWrite1h"] = *u.cache_write_1h;
  if (u.reasoning) out["reasoning"] = *u.reasoning;
  return out;
}

Usage SumUsage(const std::vector<Usage>& usages) {
  Usage sum;
  bool any_flag = false;
  bool all_true = true;
  for (const Usage& u : usages) {
    sum.input += u.input;
    sum.output += u.output;
    sum.cache_read += u.cache_read;
    sum.cache_write += u.cache_write;
    sum.total_tokens += u.total_tokens;
    AddOptional(sum.cache_write_1h, u.cache_write_1h);
    AddOptional(sum.reasoning, u.reasoning);
    sum.cost.input += u.cost.input;
    sum.cost.output += u.cost.output;
    sum.cost.cache_read += u.cost.cache_read;
    sum.cost.cache_write += u.cost.cache_write;
    sum.cost.total += u.cost.total;
    any_flag = any_flag || u.cost.total_from_provider.has_value();
    all_true = all_true && u.cost.total_from_provider.value_or(false);
  }
  if (any_flag) sum.cost.total_from_provider = all_true;
  return sum;
}

}  // namespace pi_fusion::store
