// fusion-models.json v3's named panels: their JSON form, their rules, and which one a run uses.
//
//   "panels": {<name>: {"candidates": [sel, sel, sel], "evaluator": sel, "merger": sel,
//                       "thinking"?: {"candidates"?: L, "evaluator"?: L, "merger"?: L},
//                       "policy"?: <v3 policy>}},
//   "default_panel"?: <name>
//
// A name matches ^[a-z0-9][a-z0-9-]{0,31}$ (it is typed after /fusion @). L is one of Pi's
// thinking levels off|minimal|low|medium|high|xhigh, or "inherit" (the parent's level, as an
// absent key). A panel without `policy` runs under the file's top-level policy. default_panel
// names a panel of the file; absent, a run without @<name> uses the top-level cast. Every object
// is closed. Errors are config_invalid and name the panel and key ("panels.fast.thinking.merger
// must be …"). Values and pure functions; thread-safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/models_config.h"
#include "pi_fusion/status.h"

namespace pi_fusion::config {

// Parses a policy object (`where` prefixes its messages, e.g. "panels.fast."): the file's
// own policy rules, passed in so that panels and the top level share one spelling of them.
using PolicyParser =
    std::function<Result<Policy>(const nlohmann::json& object, const std::string& where)>;
using PolicyWriter = std::function<nlohmann::ordered_json(const Policy& policy)>;

// Whether `name` is a valid panel name.
bool IsPanelName(std::string_view name);

// The v3 keys `panels` and `default_panel` of `root` (either may be absent) into `config`.
Status PanelsFromJson(const nlohmann::json& root, const PolicyParser& parse_policy,
                      ModelsConfig& config);

// The panels' slots, thinking levels and policies (by `validate_policy`), names, and that
// default_panel names one of them.
Status ValidatePanels(const ModelsConfig& config,
                      const std::function<Status(const Policy&)>& validate_policy);

// Whether `config` needs v3 for its panels (any panel or a default).
inline bool HasPanels(const ModelsConfig& config) {
  return !config.panels.empty() || config.default_panel.has_value();
}

// Writes `panels` and `default_panel` into `root` (nothing when there are none): panels by name,
// each with its keys in the order candidates, evaluator, merger, thinking (only the roles that do
// not inherit, left out when all inherit), policy (when it has its own).
void PanelsToJson(const ModelsConfig& config, const PolicyWriter& write_policy,
                  nlohmann::ordered_json& root);

// The panel names of `config`, sorted.
std::vector<std::string> PanelNames(const ModelsConfig& config);

// What a run uses: the cast (as a ModelsConfig without panels, so the admission and the
// manifest's config record take it as they take the top-level cast), its policy, its thinking
// per role and the panel's name (empty: the top-level cast).
struct PanelChoice {
  std::string name;
  ModelsConfig cast;
  RoleThinking thinking;
};

// The panel `requested` names; "" means default_panel when set, else the top-level cast.
// invalid_arguments naming the panels there are when `requested` is not one of them.
Result<PanelChoice> ChoosePanel(const ModelsConfig& config, std::string_view requested);

}  // namespace pi_fusion::config
