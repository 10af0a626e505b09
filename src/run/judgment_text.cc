#include "run/judgment_text.h"

#include <set>

#include "core/terminal_text.h"
#include "store/manifest.h"
#include "workflow/order_check.h"

namespace pi_fusion::run {
namespace {

using nlohmann::json;

std::string Count(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

size_t ArraySize(const json& object, const char* key) {
  const json value = object.is_object() ? object.value(key, json()) : json();
  return value.is_array() ? value.size() : 0;
}

std::string Shown(const json& row, const char* key) {
  const json value = row.is_object() ? row.value(key, json()) : json();
  return value.is_string() ? NeutralizeControls(value.get<std::string>(), TextShape::kSingleLine)
                           : "";
}

bool IsCitations(const json& c) {
  return c.is_object() && c.value("checked", json()).is_number_unsigned() &&
         c.value("broken", json()).is_array();
}

}  // namespace

std::string PanelKind(const std::vector<std::string>& candidate_routes) {
  std::set<std::string> routes(candidate_routes.begin(), candidate_routes.end());
  if (routes.size() <= 1) return "one_model";
  std::set<std::string> providers;
  for (const std::string& route : routes) providers.insert(route.substr(0, route.find('/')));
  return providers.size() == 1 ? "one_family" : "distinct";
}

json AgreementRecord(const json& evaluation, const std::vector<std::string>& candidate_routes) {
  return {{"agreements", ArraySize(evaluation, "agreements")},
          {"conflicts", ArraySize(evaluation, "conflicts")},
          {"panel", PanelKind(candidate_routes)}};
}

std::string AgreementLine(const json& agreement) {
  if (!agreement.is_object() || !agreement.value("agreements", json()).is_number_unsigned() ||
      !agreement.value("conflicts", json()).is_number_unsigned()) {
    return "";
  }
  const std::string panel = agreement.value("panel", std::string());
  const std::string who = panel == "one_model"    ? "one model"
                          : panel == "one_family" ? "one family (one provider)"
                                                  : "distinct families";
  return "Panel: " + Count(agreement["agreements"].get<size_t>(), "agreement", "agreements") +
         ", " + Count(agreement["conflicts"].get<size_t>(), "conflict", "conflicts") +
         "; candidates from " + who + ".";
}

std::string OrderCheckLine(const json& record) {
  if (!store::IsOrderCheckRecord(record)) return "";
  const size_t total = record["conflicts"].size();
  const size_t sensitive = record["order_sensitive"].get<size_t>();
  if (sensitive > 0) return workflow::OrderSensitiveLine(sensitive, total);
  return "order check: " + std::to_string(total) + (total == 1 ? " conflict" : " conflicts") +
         " stable";
}

std::string CheckedClaimsLine(const json& claims) {
  if (!claims.is_array()) return "";
  std::string line = "checked claims: " + std::to_string(claims.size());
  std::string split;
  for (const char* verdict : {"supported", "refuted", "unclear"}) {
    size_t n = 0;
    for (const json& claim : claims)
      n += claim.is_object() && claim.value("verdict", "") == verdict;
    if (n > 0) split += (split.empty() ? "" : ", ") + std::to_string(n) + " " + verdict;
  }
  return split.empty() ? line : line + " (" + split + ")";
}

std::vector<std::string> CheckedClaimLines(const json& claims) {
  std::vector<std::string> lines;
  if (!claims.is_array()) return lines;
  for (const json& claim : claims) {
    std::string evidence;
    const json refs = claim.is_object() ? claim.value("evidence", json::array()) : json::array();
    for (const json& ref : refs) {
      if (!ref.is_string()) continue;
      evidence += (evidence.empty() ? "" : ", ") +
                  NeutralizeControls(ref.get<std::string>(), TextShape::kSingleLine);
    }
    lines.push_back("- [" + Shown(claim, "verdict") + "] " + Shown(claim, "claim") +
                    (evidence.empty() ? "" : " (evidence: " + evidence + ")"));
  }
  return lines;
}

std::string CitationsLine(const json& citations) {
  if (!IsCitations(citations)) return "";
  const json& broken = citations["broken"];
  std::string line = "citations: " + std::to_string(citations["checked"].get<size_t>()) +
                     " checked, " + std::to_string(broken.size()) + " broken";
  if (!broken.empty()) {
    line += " — " + Shown(broken[0], "ref") + " " + Shown(broken[0], "detail");
    if (broken.size() > 1) line += " (+" + std::to_string(broken.size() - 1) + " more)";
  }
  if (const json unchecked = citations.value("unchecked", json()); unchecked.is_number()) {
    line += "; " + std::to_string(unchecked.get<size_t>()) + " more not checked (cap)";
  }
  return line;
}

std::vector<std::string> BrokenCitationLines(const json& citations) {
  std::vector<std::string> lines;
  if (!IsCitations(citations)) return lines;
  for (const json& row : citations["broken"]) {
    std::string where;
    for (const json& in : row.value("in", json::array())) {
      if (!in.is_string()) continue;
      where += (where.empty() ? "" : ", ") +
               NeutralizeControls(in.get<std::string>(), TextShape::kSingleLine);
    }
    lines.push_back("- " + Shown(row, "ref") + " " + Shown(row, "detail") + " [" +
                    Shown(row, "reason") + (where.empty() ? "" : "; in " + where) + "]");
  }
  return lines;
}

}  // namespace pi_fusion::run
