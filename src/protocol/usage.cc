#include "protocol/usage.h"

#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "protocol/constants.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;

constexpr std::array<const char*, 5> kTokenKeys = {"input", "output", "cacheRead", "cacheWrite",
                                                   "totalTokens"};
constexpr std::array<const char*, 2> kOptionalTokenKeys = {"cacheWrite1h", "reasoning"};
constexpr std::array<const char*, 5> kCostKeys = {"input", "output", "cacheRead", "cacheWrite",
                                                  "total"};

Status Invalid(const std::string& message) {
  return Status::Error(std::string(kChildEventInvalid), "usage " + message);
}

bool IsCount(const json& value) {
  if (value.is_number_unsigned()) return true;
  if (value.is_number_integer()) return value.get<int64_t>() >= 0;
  if (value.is_number_float()) {
    const double d = value.get<double>();
    return std::isfinite(d) && d >= 0;
  }
  return false;
}

template <size_t N>
bool Contains(const std::array<const char*, N>& keys, const std::string& key) {
  for (const char* k : keys) {
    if (key == k) return true;
  }
  return false;
}

Status ValidateCost(const json& cost) {
  if (!cost.is_object()) return Invalid("cost is not an object");
  for (const char* key : kCostKeys) {
    if (!cost.contains(key) || !IsCount(cost[key])) {
      return Invalid(std::string("cost.") + key + " is missing or not a non-negative number");
    }
  }
  for (auto it = cost.begin(); it != cost.end(); ++it) {
    if (it.key() == "totalFromProvider") {
      if (!it->is_boolean()) return Invalid("cost.totalFromProvider is not a boolean");
    } else if (!Contains(kCostKeys, it.key())) {
      return Invalid("cost has an unknown key \"" + it.key() + "\"");
    }
  }
  return Status::Ok();
}

// Adds `b` to `a` keeping integers integral when both are.
json Add(const json& a, const json& b) {
  if (a.is_number_float() || b.is_number_float()) return a.get<double>() + b.get<double>();
  return a.get<uint64_t>() + b.get<uint64_t>();
}

}  // namespace

Status ValidateUsage(const json& usage) {
  if (!usage.is_object()) return Invalid("is not an object");
  for (const char* key : kTokenKeys) {
    if (!usage.contains(key) || !IsCount(usage[key])) {
      return Invalid(std::string(key) + " is missing or not a non-negative number");
    }
  }
  for (auto it = usage.begin(); it != usage.end(); ++it) {
    if (it.key() == "cost") continue;
    if (Contains(kTokenKeys, it.key())) continue;
    if (!Contains(kOptionalTokenKeys, it.key())) {
      return Invalid("has an unknown key \"" + it.key() + "\"");
    }
    if (!IsCount(*it)) return Invalid(it.key() + " is not a non-negative number");
  }
  if (!usage.contains("cost")) return Invalid("cost is missing");
  return ValidateCost(usage["cost"]);
}

bool IsZeroUsage(const json& usage) {
  auto zero = [](const json& v) { return v.get<double>() == 0.0; };
  for (auto it = usage.begin(); it != usage.end(); ++it) {
    if (it.key() == "cost") continue;
    if (!zero(*it)) return false;
  }
  for (const char* key : kCostKeys) {
    if (!zero(usage["cost"][key])) return false;
  }
  return true;
}

json SumUsage(const std::vector<json>& usages) {
  json sum = {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"totalTokens", 0}};
  json cost = {{"input", 0}, {"output", 0}, {"cacheRead", 0}, {"cacheWrite", 0}, {"total", 0}};
  std::optional<bool> all_from_provider;
  for (const json& usage : usages) {
    for (auto it = usage.begin(); it != usage.end(); ++it) {
      if (it.key() == "cost") continue;
      sum[it.key()] = sum.contains(it.key()) ? Add(sum[it.key()], *it) : *it;
    }
    const json& c = usage["cost"];
    for (const char* key : kCostKeys) cost[key] = Add(cost[key], c[key]);
    if (c.contains("totalFromProvider")) {
      const bool from_provider = c["totalFromProvider"].get<bool>();
      all_from_provider = all_from_provider.value_or(true) && from_provider;
    }
  }
  if (all_from_provider) {
    // Any input without the flag was an estimate ("absent also means false").
    bool every_input_flagged = true;
    for (const json& usage : usages) {
      every_input_flagged = every_input_flagged && usage["cost"].contains("totalFromProvider");
    }
    cost["totalFromProvider"] = *all_from_provider && every_input_flagged;
  }
  sum["cost"] = std::move(cost);
  return sum;
}

}  // namespace pi_fusion::protocol
