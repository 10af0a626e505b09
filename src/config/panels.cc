#include "config/panels.h"

#include <algorithm>
#include <array>
#include <utility>

#include "config/config_constants.h"
#include "core/error_codes.h"

namespace pi_fusion::config {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 3> kCastKeys = {"candidates", "evaluator", "merger"};
constexpr std::array<std::string_view, 5> kPanelKeys = {"candidates", "evaluator", "merger",
                                                        "thinking", "policy"};
constexpr std::string_view kPanelsKey = "panels";
constexpr std::string_view kDefaultPanelKey = "default_panel";

Status Invalid(std::string message) {
  return Status::Error(std::string(kConfigInvalid), std::move(message));
}

template <size_t N>
bool IsOneOf(std::string_view key, const std::array<std::string_view, N>& keys) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Unknown keys first (sorted, as the file's own check), then the missing required ones.
template <size_t N, size_t M>
Status CheckPanelKeys(const json& object, const std::array<std::string_view, N>& allowed,
                      const std::array<std::string_view, M>& required, const std::string& where) {
  std::vector<std::string> unknown;
  for (const auto& item : object.items()) {
    if (!IsOneOf(item.key(), allowed)) unknown.push_back(item.key());
  }
  std::sort(unknown.begin(), unknown.end());
  if (!unknown.empty()) return Invalid(where + " contains unsupported key(s): " + Join(unknown));
  std::vector<std::string> missing;
  for (std::string_view key : required) {
    if (!object.contains(key)) missing.emplace_back(key);
  }
  if (!missing.empty()) return Invalid(where + " missing required key(s): " + Join(missing));
  return Status();
}

std::string LevelsText() {
  std::string out;
  for (std::string_view level : kPanelThinkingLevels) out += std::string(level) + ", ";
  return out + "or \"" + std::string(kInheritThinking) + "\"";
}

bool IsThinkingLevel(std::string_view level) { return IsOneOf(level, kPanelThinkingLevels); }

// One role's level: "inherit" is read as absent, so a file that spells it out and one that leaves
// the key out are the same panel (and are saved the same way).
Status RoleLevelFromJson(const json& thinking, std::string_view role, const std::string& where,
                         std::optional<std::string>& out) {
  if (!thinking.contains(role)) return Status();
  const json& value = thinking[std::string(role)];
  const std::string key = where + "." + std::string(role);
  if (!value.is_string()) return Invalid(key + " must be one of " + LevelsText());
  const std::string level = value.get<std::string>();
  if (level == kInheritThinking) return Status();
  if (!IsThinkingLevel(level)) {
    return Invalid(key + " must be one of " + LevelsText() + " (found \"" + level + "\")");
  }
  out = level;
  return Status();
}

Status ThinkingFromJson(const json& thinking, const std::string& where, RoleThinking& out) {
  if (!thinking.is_object()) {
    return Invalid(where +
                   " must be an object with the optional keys candidates, evaluator, "
                   "merger");
  }
  if (Status keys = CheckPanelKeys(thinking, kCastKeys, std::array<std::string_view, 0>{}, where);
      !keys.ok()) {
    return keys;
  }
  if (Status s = RoleLevelFromJson(thinking, "candidates", where, out.candidates); !s.ok()) {
    return s;
  }
  if (Status s = RoleLevelFromJson(thinking, "evaluator", where, out.evaluator); !s.ok()) return s;
  return RoleLevelFromJson(thinking, "merger", where, out.merger);
}

// The cast's shape: three candidates, every selection a string; the selection rules themselves
// are ValidatePanels'.
Status CastFromJson(const json& object, const std::string& where, Panel& panel) {
  const json& candidates = object["candidates"];
  if (!candidates.is_array() || candidates.size() != 3) {
    const std::string found =
        candidates.is_array() ? std::to_string(candidates.size()) + " entries" : "no array";
    return Invalid(where + ".candidates must list exactly 3 model selections (found " + found +
                   ")");
  }
  for (Slot slot : kAllSlots) {
    const bool judge = slot == Slot::kEvaluator || slot == Slot::kMerger;
    const json& value = judge ? object[SlotId(slot)] : candidates[static_cast<size_t>(slot)];
    if (!value.is_string()) {
      return Invalid(where + ": " + std::string(SlotLabel(slot)) + " must be a string");
    }
    panel.selection(slot) = value.get<std::string>();
  }
  return Status();
}

Result<Panel> PanelFromJson(const json& object, const std::string& where,
                            const PolicyParser& parse_policy) {
  if (!object.is_object()) {
    return Invalid(where + " must be an object with the keys candidates, evaluator, merger");
  }
  if (Status keys = CheckPanelKeys(object, kPanelKeys, kCastKeys, where); !keys.ok()) return keys;
  Panel panel;
  if (Status cast = CastFromJson(object, where, panel); !cast.ok()) return cast;
  if (object.contains("thinking")) {
    if (Status s = ThinkingFromJson(object["thinking"], where + ".thinking", panel.thinking);
        !s.ok()) {
      return s;
    }
  }
  if (object.contains("policy")) {
    Result<Policy> policy = parse_policy(object["policy"], where + ".");
    if (!policy.ok()) return policy.status();
    panel.policy = *policy;
  }
  return panel;
}

std::string NameRule(const std::string& name) {
  return "\"" + name + "\" is not a panel name: a name is 1 to 32 lower-case letters, digits or " +
         "'-', starting with a letter or digit (" + std::string(kPanelNamePattern) + ")";
}

// "fast, deep" or "none"; the default marked.
std::string PanelList(const ModelsConfig& config) {
  if (config.panels.empty()) return "it defines no panels";
  std::string out;
  for (const auto& [name, panel] : config.panels) {
    out += (out.empty() ? "" : ", ") + name +
           (config.default_panel == name ? std::string(" (default)") : std::string());
  }
  return "its panels: " + out;
}

ModelsConfig CastOf(const ModelsConfig& config, const Panel& panel) {
  ModelsConfig cast;
  for (Slot slot : kAllSlots) cast.selection(slot) = panel.selection(slot);
  cast.policy = panel.policy.value_or(config.policy);
  return cast;
}

}  // namespace

bool IsPanelName(std::string_view name) {
  if (name.empty() || name.size() > kPanelNameMaxLength) return false;
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_or_digit(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return lower_or_digit(c) || c == '-'; });
}

Status PanelsFromJson(const json& root, const PolicyParser& parse_policy, ModelsConfig& config) {
  if (root.contains(kPanelsKey)) {
    const json& panels = root[std::string(kPanelsKey)];
    if (!panels.is_object()) return Invalid("panels must be an object of named panels");
    for (const auto& item : panels.items()) {
      if (!IsPanelName(item.key())) return Invalid("panels: " + NameRule(item.key()));
      Result<Panel> panel = PanelFromJson(item.value(), "panels." + item.key(), parse_policy);
      if (!panel.ok()) return panel.status();
      config.panels.emplace(item.key(), *std::move(panel));
    }
  }
  if (root.contains(kDefaultPanelKey)) {
    const json& name = root[std::string(kDefaultPanelKey)];
    if (!name.is_string()) return Invalid("default_panel must be the name of a panel (a string)");
    config.default_panel = name.get<std::string>();
  }
  return Status();
}

Status ValidatePanels(const ModelsConfig& config,
                      const std::function<Status(const Policy&)>& validate_policy) {
  for (const auto& [name, panel] : config.panels) {
    const std::string where = "panels." + name;
    if (!IsPanelName(name)) return Invalid("panels: " + NameRule(name));
    for (Slot slot : kAllSlots) {
      Result<Selection> parsed = ParseSelection(slot, panel.selection(slot));
      if (!parsed.ok()) return Invalid(where + ": " + parsed.status().message());
    }
    for (const std::optional<std::string>* level :
         {&panel.thinking.candidates, &panel.thinking.evaluator, &panel.thinking.merger}) {
      if (*level && !IsThinkingLevel(**level)) {
        return Invalid(where + ".thinking: \"" + **level + "\" is not one of " + LevelsText());
      }
    }
    if (panel.policy) {
      if (Status s = validate_policy(*panel.policy); !s.ok()) {
        return Invalid(where + "." + s.message());
      }
    }
  }
  if (config.default_panel && !config.panels.contains(*config.default_panel)) {
    return Invalid("default_panel \"" + *config.default_panel + "\" names no panel of the file; " +
                   PanelList(config));
  }
  return Status();
}

void PanelsToJson(const ModelsConfig& config, const PolicyWriter& write_policy,
                  nlohmann::ordered_json& root) {
  if (!config.panels.empty()) {
    nlohmann::ordered_json panels = nlohmann::ordered_json::object();
    for (const auto& [name, panel] : config.panels) {
      nlohmann::ordered_json out;
      out["candidates"] = panel.candidates;
      out["evaluator"] = panel.evaluator;
      out["merger"] = panel.merger;
      if (!panel.thinking.IsInherit()) {
        nlohmann::ordered_json thinking = nlohmann::ordered_json::object();
        if (panel.thinking.candidates) thinking["candidates"] = *panel.thinking.candidates;
        if (panel.thinking.evaluator) thinking["evaluator"] = *panel.thinking.evaluator;
        if (panel.thinking.merger) thinking["merger"] = *panel.thinking.merger;
        out["thinking"] = std::move(thinking);
      }
      if (panel.policy) out["policy"] = write_policy(*panel.policy);
      panels[name] = std::move(out);
    }
    root["panels"] = std::move(panels);
  }
  if (config.default_panel) root["default_panel"] = *config.default_panel;
}

std::vector<std::string> PanelNames(const ModelsConfig& config) {
  std::vector<std::string> names;
  for (const auto& [name, panel] : config.panels) names.push_back(name);
  return names;
}

Result<PanelChoice> ChoosePanel(const ModelsConfig& config, std::string_view requested) {
  std::string name(requested);
  if (name.empty() && config.default_panel) name = *config.default_panel;
  if (name.empty()) {
    ModelsConfig cast = config;
    cast.panels.clear();
    cast.default_panel.reset();
    return PanelChoice{"", std::move(cast), {}};
  }
  const auto found = config.panels.find(name);
  if (found == config.panels.end()) {
    return Status::Error(kInvalidArguments, "no panel named \"" + name + "\" in " +
                                                std::string(kModelsFileName) + "; " +
                                                PanelList(config) +
                                                ". Name one of them, or leave out @<panel> "
                                                "for the default.");
  }
  return PanelChoice{name, CastOf(config, found->second), found->second.thinking};
}

}  // namespace pi_fusion::config
