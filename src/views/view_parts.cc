#include "views/view_parts.h"

#include <array>
#include <cstdio>

#include "config/shared_model.h"
#include "core/number_text.h"
#include "core/role.h"
#include "core/utf8.h"
#include "store/run_id.h"

namespace pi_fusion::views {

using nlohmann::json;

std::string StringAt(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Grouped(uint64_t n) { return GroupedDigits(n); }

std::string SharedModelNote(const json& models) {
  const json candidates = models.is_object() ? models.value("candidates", json()) : json();
  if (!candidates.is_array() || candidates.size() != 3) return "";
  std::array<std::string, 3> ids;
  for (size_t i = 0; i < 3; ++i) {
    if (candidates[i].is_string()) ids[i] = candidates[i].get<std::string>();
  }
  const std::optional<config::SharedModel> shared = config::SharedCandidateModel(ids);
  return shared ? config::SharedModelText(*shared) : "";
}

std::string ShortQuestion(std::string_view description) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < description.size();) {
    const size_t len = DecodeUtf8At(description, i).length;
    if (chars == kQuestionMaxChars) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out + "…";
    }
    const char ch = description[i];
    out.append(ch == '\n' || ch == '\r' || ch == '\t' ? " " : description.substr(i, len));
    i += len;
    ++chars;
  }
  return out;
}

std::string UsageText(const json& usage) {
  if (!usage.is_object() || !usage.contains("totalTokens")) return "";
  const uint64_t tokens = usage.value("totalTokens", uint64_t{0});
  double cost = 0;
  if (usage.contains("cost") && usage["cost"].is_object()) cost = usage["cost"].value("total", 0.0);
  char dollars[32];
  std::snprintf(dollars, sizeof(dollars), "$%.4f", cost);
  return Grouped(tokens) + " tokens · " + dollars;
}

std::string RequestsPrefix(const json& model_requests) {
  if (!model_requests.is_number_integer() || model_requests.get<int64_t>() < 0) return "";
  const uint64_t n = model_requests.get<uint64_t>();
  return Grouped(n) + (n == 1 ? " model request · " : " model requests · ");
}

std::string EstimateText(const json& estimate) {
  if (!estimate.is_object()) return "";
  const json expected = estimate.value("expected_usd", json());
  const json worst = estimate.value("worst_case_usd", json());
  if (!expected.is_number() || !worst.is_number()) return "";
  const std::string basis = StringAt(estimate, "expected_basis");
  const std::string why = basis == "earlier_runs" ? " (from earlier runs)"
                          : basis == "mixed"      ? " (partly from earlier runs)"
                                                  : " (a quarter of each output cap)";
  const auto dollars = [](double usd) {
    char text[48];
    std::snprintf(text, sizeof(text), "$%.4f", usd);  // as the usage lines print cost
    return std::string(text);
  };
  return "estimated " + dollars(expected.get<double>()) + " expected" + why + ", " +
         dollars(worst.get<double>()) + " worst case";
}

std::string RequestsAndUsageText(const json& model_requests, const json& usage,
                                 const json& estimate) {
  const std::string text = UsageText(usage);
  if (text.empty()) return "";
  const std::string estimated = EstimateText(estimate);
  return RequestsPrefix(model_requests) + text + (estimated.empty() ? "" : " · " + estimated);
}

std::vector<std::string> RoleUsageLines(const json& usage_by_role) {
  std::vector<std::string> lines;
  if (!usage_by_role.is_array()) return lines;
  for (const json& row : usage_by_role) {
    if (!row.is_object()) continue;
    const std::optional<Role> role = ParseRole(StringAt(row, "role"));
    const json slot = row.value("slot", json());
    if (!role || (*role == Role::kCandidate && !slot.is_number_integer())) continue;
    std::string name(RoleLabel(*role));
    if (*role == Role::kCandidate) name += " " + std::to_string(slot.get<int>());
    const std::string model = StringAt(row, "model");
    if (!model.empty()) name += " (" + model + ")";
    const json reused = row.value("reused_from", json());
    if (reused.is_string() && store::IsValidRunId(reused.get<std::string>())) {
      // Paid by the run it came from: this run spent nothing on it.
      lines.push_back(name + ": reused from " +
                      std::string(store::ShortRunId(reused.get<std::string>())));
      continue;
    }
    const std::string usage =
        RequestsAndUsageText(row.value("requests", json()), row.value("usage", json()));
    lines.push_back(name + ": " + (usage.empty() ? "no usage reported" : usage));
  }
  return lines;
}

json AnswerView(const std::string& markdown, const std::string& note) {
  std::string preview;
  size_t lines = 0;
  bool cut = false;
  for (size_t start = 0; start < markdown.size();) {
    size_t end = markdown.find('\n', start);
    end = end == std::string::npos ? markdown.size() : end + 1;
    if (lines == kPreviewMaxLines || preview.size() + (end - start) > kPreviewMaxBytes) {
      cut = true;
      break;
    }
    preview.append(markdown, start, end - start);
    ++lines;
    start = end;
  }
  if (preview.empty() && !markdown.empty()) {  // one line longer than the byte cap
    preview = TruncateUtf8(markdown, kPreviewMaxBytes);
    cut = true;
  }
  while (!preview.empty() && (preview.back() == '\n' || preview.back() == ' ')) preview.pop_back();
  if (cut) preview += "\n\n…";
  json view = {{"preview", preview}, {"markdown", markdown}};
  if (!note.empty()) view["note"] = note;
  return view;
}

}  // namespace pi_fusion::views
