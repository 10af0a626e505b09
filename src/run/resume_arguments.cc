#include "run/resume_arguments.h"

#include <algorithm>
#include <optional>

#include "config/config_constants.h"
#include "config/panels.h"
#include "core/error_codes.h"

namespace pi_fusion::run {
namespace {

Status Invalid(const std::string& why) {
  return Status::Error(kInvalidArguments,
                       "/fusion-resume: " + why + ". Usage: " + std::string(kResumeUsage));
}

std::vector<std::string_view> Words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
    const size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t' && text[i] != '\n') ++i;
    if (i > start) words.push_back(text.substr(start, i - start));
  }
  return words;
}

// A route as fusion-models.json names one: "$current", or "provider/model" with both parts.
bool IsRoute(std::string_view route) {
  if (route == config::kCurrentSelection) return true;
  const size_t slash = route.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < route.size();
}

// "N=provider/model" into `out`.
Status AddSwap(std::string_view value, ResumeArguments& out) {
  const size_t eq = value.find('=');
  if (eq == std::string_view::npos) {
    return Invalid("--slot takes N=provider/model, not \"" + std::string(value) + "\"");
  }
  const std::optional<Slot> slot = ParseSwapSlot(value.substr(0, eq));
  if (!slot) {
    return Invalid("--slot names 1, 2, 3, evaluator or merger, not \"" +
                   std::string(value.substr(0, eq)) + "\"");
  }
  const std::string_view route = value.substr(eq + 1);
  if (!IsRoute(route)) {
    return Invalid("--slot " + SwapSlotName(*slot) + " needs a route as provider/model, not \"" +
                   std::string(route) + "\"");
  }
  const bool named_twice = std::any_of(out.swaps.begin(), out.swaps.end(),
                                       [&](const RouteSwap& s) { return s.slot == *slot; });
  if (named_twice) return Invalid("--slot " + SwapSlotName(*slot) + " is named twice");
  out.swaps.push_back({*slot, std::string(route)});
  return Status::Ok();
}

// "@<panel>": the panel whose routes the slots that did not verify take.
Status AddPanel(std::string_view name, ResumeArguments& out) {
  if (!config::IsPanelName(name)) {
    return Invalid("\"@" + std::string(name) + "\" does not name a panel (a name is lower-case " +
                   "letters, digits and '-')");
  }
  if (!out.panel.empty()) return Invalid("one panel at a time");
  out.panel = std::string(name);
  return Status::Ok();
}

}  // namespace

std::optional<Slot> ParseSwapSlot(std::string_view name) {
  if (name == "1") return Slot::kCandidate1;
  if (name == "2") return Slot::kCandidate2;
  if (name == "3") return Slot::kCandidate3;
  return kSlotIds.Parse(name);
}

std::string SwapSlotName(Slot slot) {
  if (RoleOf(slot) != Role::kCandidate) return std::string(SlotId(slot));
  return std::to_string(static_cast<int>(slot) + 1);
}

Result<ResumeArguments> ParseResumeArguments(std::string_view text) {
  ResumeArguments out;
  const std::vector<std::string_view> words = Words(text);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string_view word = words[i];
    if (word == "--slot" || word.rfind("--slot=", 0) == 0) {
      std::string_view value = word.size() > 6 ? word.substr(7) : std::string_view();
      if (value.empty()) {
        if (i + 1 == words.size()) return Invalid("--slot needs N=provider/model");
        value = words[++i];
      }
      if (Status added = AddSwap(value, out); !added.ok()) return added;
    } else if (word.rfind("@", 0) == 0) {
      if (Status named = AddPanel(word.substr(1), out); !named.ok()) return named;
    } else if (word.rfind("-", 0) == 0) {
      return Invalid("unknown option \"" + std::string(word) + "\"");
    } else if (!out.query.empty()) {
      return Invalid("one run at a time (\"" + out.query + "\" and \"" + std::string(word) + "\")");
    } else {
      out.query = std::string(word);
    }
  }
  if (out.query.empty() && !out.swaps.empty()) return Invalid("--slot needs the run to resume");
  if (out.query.empty() && !out.panel.empty()) return Invalid("@<panel> needs the run to resume");
  return out;
}

}  // namespace pi_fusion::run
