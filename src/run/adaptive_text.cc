#include "run/adaptive_text.h"

#include <cstdio>

namespace pi_fusion::run {
namespace {

bool IsRecord(const nlohmann::json& a) {
  return a.is_object() && a.contains("agree") && a["agree"].is_boolean() &&
         a.contains("decided_by") && a["decided_by"].is_string();
}

std::string Dollars(double usd) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "$%.4f", usd);
  return buf;
}

}  // namespace

std::string AdaptiveSentence(const nlohmann::json& adaptive) {
  if (!IsRecord(adaptive)) return "";
  if (adaptive["agree"].get<bool>()) {
    std::string how;
    if (adaptive["decided_by"] == "identical") {
      how = "identical answers, no check";
    } else if (adaptive.value("reused", false)) {
      how = "agreement check reused from the resumed run";
    } else {
      how = "agreement check";
      const nlohmann::json cost = adaptive.value("check_cost_usd", nlohmann::json());
      if (cost.is_number()) how += ", " + Dollars(cost.get<double>());
    }
    return "Adaptive: 2 of 3 asked: candidates 1 and 2 agreed (" + how + ").";
  }
  const nlohmann::json differences = adaptive.value("differences", nlohmann::json::array());
  const size_t n = differences.is_array() ? differences.size() : 0;
  return "Adaptive: 3 of 3 asked: candidates 1 and 2 did not agree (" + std::to_string(n) +
         (n == 1 ? " difference" : " differences") + "), so candidate 3 was asked.";
}

std::string AdaptiveStatus(const nlohmann::json& adaptive) {
  if (!IsRecord(adaptive)) return "";
  return adaptive["agree"].get<bool>() ? "adaptive (2 of 3 asked)" : "adaptive (3 of 3 asked)";
}

}  // namespace pi_fusion::run
