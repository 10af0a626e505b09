#include "config/models_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/panels.h"
#include "core/utf8.h"

namespace pi_fusion::config {

const std::string& ModelsConfig::selection(Slot slot) const {
  switch (slot) {
    case Slot::kCandidate1:
    case Slot::kCandidate2:
    case Slot::kCandidate3:
      return candidates[static_cast<size_t>(slot)];
    case Slot::kEvaluator:
      return evaluator;
    case Slot::kMerger:
      break;
  }
  return merger;
}

std::string& ModelsConfig::selection(Slot slot) {
  return const_cast<std::string&>(std::as_const(*this).selection(slot));
}

const std::string& Panel::selection(Slot slot) const {
  switch (slot) {
    case Slot::kCandidate1:
    case Slot::kCandidate2:
    case Slot::kCandidate3:
      return candidates[static_cast<size_t>(slot)];
    case Slot::kEvaluator:
      return evaluator;
    case Slot::kMerger:
      break;
  }
  return merger;
}

std::string& Panel::selection(Slot slot) {
  return const_cast<std::string&>(std::as_const(*this).selection(slot));
}

const std::optional<std::string>& RoleThinking::of(Role role) const {
  switch (role) {
    case Role::kCandidate:
      return candidates;
    case Role::kEvaluator:
    case Role::kRepair:
      return evaluator;
    case Role::kMerger:
      break;
  }
  return merger;
}

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kV1Keys = {"schema_version", "candidates", "evaluator",
                                                     "merger"};
constexpr std::string_view kPolicyKey = "policy";
constexpr std::array<std::string_view, 3> kPolicyKeys = {"quorum", "grace_seconds", "max_cost_usd"};
constexpr std::string_view kStallKey = "stall_seconds";
constexpr std::string_view kPanelModeKey = "panel";
constexpr std::string_view kPanelFull = "full";
constexpr std::string_view kPanelAdaptive = "adaptive";
constexpr std::string_view kOrderCheckKey = "order_check";
constexpr std::string_view kEvaluatorToolsKey = "evaluator_tools";
constexpr std::string_view kKeepWarmKey = "keep_warm_seconds";
// v3's panel keys (config/panels.h).
constexpr std::array<std::string_view, 2> kPanelFileKeys = {"default_panel", "panels"};

Status Invalid(std::string message) {
  return Status::Error(std::string(kConfigInvalid), std::move(message));
}

// The white space JavaScript's String.prototype.trim removes: a selection is compared with its
// trimmed self the way Pi's TypeScript tools would, so no Unicode space can pad a model id.
bool IsTrimSpace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000 || c == 0xFEFF;
}

std::string JoinSorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Unknown keys first, then missing ones; `prefix` is "" for the file, "policy " inside it.
template <size_t N>
Status CheckKeys(const json& object, const std::array<std::string_view, N>& required,
                 const std::vector<std::string_view>& optional, const std::string& prefix) {
  std::vector<std::string> unknown;
  for (const auto& item : object.items()) {
    if (std::find(required.begin(), required.end(), item.key()) == required.end() &&
        std::find(optional.begin(), optional.end(), item.key()) == optional.end()) {
      unknown.push_back(item.key());
    }
  }
  if (!unknown.empty()) {
    return Invalid(prefix + "contains unsupported key(s): " + JoinSorted(unknown));
  }
  std::string missing;
  for (std::string_view key : required) {
    if (!object.contains(key)) missing += (missing.empty() ? "" : ", ") + std::string(key);
  }
  if (!missing.empty()) return Invalid(prefix + "missing required key(s): " + missing);
  return Status();
}

// The rules of the three policy values, shared by the file's parser and ValidatePolicy (which
// checks what the selector built): one spelling of each message.
Status QuorumRule(std::string found) {
  return Invalid("policy.quorum must be 2 or 3 (found " + std::move(found) + ")");
}
Status GraceRule(std::string found) {
  return Invalid("policy.grace_seconds must be a number of seconds from 0 to " +
                 PolicyNumberText(kMaxGraceSeconds) +
                 " (the candidate stage's wall limit), or null for the default rule (found " +
                 std::move(found) + ")");
}
Status CostCapRule(std::string found) {
  return Invalid(
      "policy.max_cost_usd must be a number of US dollars > 0, or null for no cap (found " +
      std::move(found) + ")");
}

Status StallRule(std::string found) {
  return Invalid("policy.stall_seconds must be a number of seconds > 0 and at most " +
                 PolicyNumberText(kMaxStallSeconds) +
                 " (the children's wall limit), or null for the default rule (" +
                 PolicyNumberText(kDefaultStallSeconds) + " s) (found " + std::move(found) + ")");
}

Status KeepWarmRule(std::string found) {
  return Invalid("policy.keep_warm_seconds must be a number of seconds from 0 (off) to " +
                 PolicyNumberText(kMaxKeepWarmSeconds) + " (found " + std::move(found) + ")");
}

bool KeepWarmOk(double value) {
  return std::isfinite(value) && value >= 0 && value <= kMaxKeepWarmSeconds;
}
bool GraceOk(double value) {
  return std::isfinite(value) && value >= 0 && value <= kMaxGraceSeconds;
}
bool CostCapOk(double value) { return std::isfinite(value) && value > 0; }
bool StallOk(double value) {
  return std::isfinite(value) && value > 0 && value <= kMaxStallSeconds;
}

Result<Policy> PolicyFromJson(const json& object, bool v3) {
  if (!object.is_object()) {
    return Invalid("policy must be an object with the keys quorum, grace_seconds, max_cost_usd");
  }
  if (!v3) {
    for (std::string_view key :
         {kStallKey, kPanelModeKey, kOrderCheckKey, kEvaluatorToolsKey, kKeepWarmKey}) {
      if (!object.contains(key)) continue;
      return Invalid("policy contains unsupported key(s): " + std::string(key) +
                     " (it needs schema_version \"" + std::string(kModelsSchemaV3) + "\")");
    }
  }
  const std::vector<std::string_view> optional =
      v3 ? std::vector<std::string_view>{kStallKey, kPanelModeKey, kOrderCheckKey,
                                         kEvaluatorToolsKey, kKeepWarmKey}
         : std::vector<std::string_view>{};
  if (Status keys = CheckKeys(object, kPolicyKeys, optional, "policy "); !keys.ok()) {
    return keys;
  }
  Policy policy;
  const json& quorum = object["quorum"];
  // An integer token only: 2.0 is rejected like the schema's "integer" does.
  if (!quorum.is_number_integer() ||
      (quorum.get<int64_t>() != kDefaultQuorum && quorum.get<int64_t>() != kReducedQuorum)) {
    return QuorumRule(quorum.dump());
  }
  policy.quorum = static_cast<int>(quorum.get<int64_t>());
  const json& grace = object["grace_seconds"];
  if (!grace.is_null()) {
    if (!grace.is_number() || !GraceOk(grace.get<double>())) return GraceRule(grace.dump());
    policy.grace_seconds = grace.get<double>();
  }
  const json& cap = object["max_cost_usd"];
  if (!cap.is_null()) {
    if (!cap.is_number() || !CostCapOk(cap.get<double>())) return CostCapRule(cap.dump());
    policy.max_cost_usd = cap.get<double>();
  }
  if (object.contains(kStallKey) && !object[kStallKey].is_null()) {
    const json& stall = object[kStallKey];
    if (!stall.is_number() || !StallOk(stall.get<double>())) return StallRule(stall.dump());
    policy.stall_seconds = stall.get<double>();
  }
  if (object.contains(kPanelModeKey)) {
    const json& mode = object[kPanelModeKey];
    if (!mode.is_string() || (mode != kPanelFull && mode != kPanelAdaptive)) {
      return Invalid("policy.panel must be \"full\" or \"adaptive\" (found " + mode.dump() + ")");
    }
    policy.adaptive = mode == kPanelAdaptive;
  }
  if (object.contains(kOrderCheckKey)) {
    const json& order = object[kOrderCheckKey];
    if (order.is_string() && order.get<std::string>() == kOrderCheckOff) {
      policy.order_check = OrderCheck::kOff;
    } else if (order.is_string() && order.get<std::string>() == kOrderCheckOnConflict) {
      policy.order_check = OrderCheck::kOnConflict;
    } else {
      return Invalid("policy.order_check must be \"off\" or \"on_conflict\" (found " +
                     order.dump() + ")");
    }
  }
  if (object.contains(kEvaluatorToolsKey)) {
    const json& tools = object[kEvaluatorToolsKey];
    if (!tools.is_boolean()) {
      return Invalid("policy.evaluator_tools must be true or false (found " + tools.dump() + ")");
    }
    policy.evaluator_tools = tools.get<bool>();
  }
  if (object.contains(kKeepWarmKey)) {
    const json& keep = object[kKeepWarmKey];
    if (!keep.is_number() || !KeepWarmOk(keep.get<double>())) return KeepWarmRule(keep.dump());
    policy.keep_warm_seconds = keep.get<double>();
  }
  return policy;
}

// The file's keys but the panels' (read by PanelsFromJson), for the closed-key check.
json WithoutPanels(json root) {
  for (std::string_view key : kPanelFileKeys) root.erase(std::string(key));
  return root;
}

// A panel's policy by the v3 policy rules, its messages prefixed with where it is
// ("panels.fast.policy.quorum must …").
PolicyParser PanelPolicyParser() {
  return [](const json& object, const std::string& where) -> Result<Policy> {
    Result<Policy> policy = PolicyFromJson(object, /*v3=*/true);
    if (!policy.ok()) return Invalid(where + policy.status().message());
    return policy;
  };
}

Result<ModelsConfig> FromJson(const json& root) {
  if (!root.is_object()) return Invalid("the file must hold a JSON object");
  const json* version = root.contains("schema_version") ? &root["schema_version"] : nullptr;
  const bool v1 = version && version->is_string() && version->get<std::string>() == kModelsSchemaV1;
  const bool v2 = version && version->is_string() && version->get<std::string>() == kModelsSchemaV2;
  const bool v3 = version && version->is_string() && version->get<std::string>() == kModelsSchemaV3;
  if (!v3) {
    for (std::string_view key : kPanelFileKeys) {
      if (root.contains(key)) {
        return Invalid("contains unsupported key(s): " + std::string(key) +
                       " (panels need schema_version \"" + std::string(kModelsSchemaV3) + "\")");
      }
    }
  }
  // v1 is closed without `policy`; say what would make the key legal rather than only refusing it.
  if (v1 && root.contains(kPolicyKey)) {
    return Invalid("contains unsupported key(s): policy (a policy needs schema_version \"" +
                   std::string(kModelsSchemaV2) + "\")");
  }
  if (Status keys = CheckKeys(WithoutPanels(root), kV1Keys, {kPolicyKey}, ""); !keys.ok()) {
    return keys;
  }
  if (!v1 && !v2 && !v3) {
    return Invalid("schema_version must be \"" + std::string(kModelsSchemaV1) + "\", \"" +
                   std::string(kModelsSchemaV2) + "\" or \"" + std::string(kModelsSchemaV3) +
                   "\" (found " + root["schema_version"].dump() + ")");
  }
  const json& candidates = root["candidates"];
  if (!candidates.is_array() || candidates.size() != 3) {
    const std::string found =
        candidates.is_array() ? std::to_string(candidates.size()) + " entries" : "no array";
    return Invalid("candidates must list exactly 3 model selections (found " + found + ")");
  }
  ModelsConfig config;
  for (Slot slot : kAllSlots) {
    const json& value = slot == Slot::kEvaluator || slot == Slot::kMerger
                            ? root[SlotId(slot)]
                            : candidates[static_cast<size_t>(slot)];
    if (!value.is_string()) return Invalid(std::string(SlotLabel(slot)) + " must be a string");
    config.selection(slot) = value.get<std::string>();
  }
  if (Status s = ValidateModelsConfig(config); !s.ok()) return s;
  if (root.contains(kPolicyKey)) {
    Result<Policy> policy = PolicyFromJson(root[kPolicyKey], v3);
    if (!policy.ok()) return policy.status();
    config.policy = *policy;
  }
  if (Status panels = PanelsFromJson(root, PanelPolicyParser(), config); !panels.ok()) {
    return panels;
  }
  if (Status panels = ValidatePanels(config, ValidatePolicy); !panels.ok()) return panels;
  return config;
}

// An integral value as a JSON integer (20, not 20.0); any other as a double, which nlohmann
// writes as the shortest text that reads back as the same value.
nlohmann::ordered_json PolicyNumber(double value) {
  constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
  if (std::trunc(value) == value && std::fabs(value) < kExactIntegers) {
    return static_cast<int64_t>(value);
  }
  return value;
}

// A policy object: keys in the order quorum, grace_seconds, max_cost_usd (unset as null), then
// stall_seconds when set, panel when not "full", order_check when not "off", evaluator_tools
// when true and keep_warm_seconds when not 0 (v3 only).
nlohmann::ordered_json PolicyJson(const Policy& value) {
  nlohmann::ordered_json policy;
  policy["quorum"] = value.quorum;
  policy["grace_seconds"] =
      value.grace_seconds ? PolicyNumber(*value.grace_seconds) : nlohmann::ordered_json(nullptr);
  policy["max_cost_usd"] =
      value.max_cost_usd ? PolicyNumber(*value.max_cost_usd) : nlohmann::ordered_json(nullptr);
  if (value.stall_seconds) policy["stall_seconds"] = PolicyNumber(*value.stall_seconds);
  if (value.adaptive) policy[kPanelModeKey] = kPanelAdaptive;
  if (value.order_check == OrderCheck::kOnConflict) policy["order_check"] = kOrderCheckOnConflict;
  if (value.evaluator_tools) policy[kEvaluatorToolsKey] = true;
  if (value.keep_warm_seconds > 0) policy[kKeepWarmKey] = PolicyNumber(value.keep_warm_seconds);
  return policy;
}

}  // namespace

Result<Selection> ParseSelection(Slot slot, std::string_view text) {
  const std::string label(SlotLabel(slot));
  const auto points = DecodeUtf8(text);
  if (!points) return Invalid(label + " is not valid UTF-8");
  if (std::all_of(points->begin(), points->end(), IsTrimSpace)) {
    return Invalid(label + " must not be blank");
  }
  if (IsTrimSpace(points->front()) || IsTrimSpace(points->back())) {
    return Invalid(label + " must not have leading or trailing white space");
  }
  Selection selection;
  if (text == kCurrentSelection) {
    selection.is_current = true;
    return selection;
  }
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) {
    return Invalid(label + " must be \"$current\" or \"provider/model\" (found \"" +
                   std::string(text) + "\")");
  }
  selection.provider = std::string(text.substr(0, slash));
  selection.model = std::string(text.substr(slash + 1));
  return selection;
}

Status ValidatePolicy(const Policy& policy) {
  if (policy.quorum != kDefaultQuorum && policy.quorum != kReducedQuorum) {
    return QuorumRule(std::to_string(policy.quorum));
  }
  if (policy.grace_seconds && !GraceOk(*policy.grace_seconds)) {
    return GraceRule(PolicyNumber(*policy.grace_seconds).dump());
  }
  if (policy.max_cost_usd && !CostCapOk(*policy.max_cost_usd)) {
    return CostCapRule(PolicyNumber(*policy.max_cost_usd).dump());
  }
  if (policy.stall_seconds && !StallOk(*policy.stall_seconds)) {
    return StallRule(PolicyNumber(*policy.stall_seconds).dump());
  }
  if (!KeepWarmOk(policy.keep_warm_seconds)) {
    return KeepWarmRule(PolicyNumber(policy.keep_warm_seconds).dump());
  }
  return Status();
}

Status ValidateModelsConfig(const ModelsConfig& config) {
  for (Slot slot : kAllSlots) {
    Result<Selection> parsed = ParseSelection(slot, config.selection(slot));
    if (!parsed.ok()) return parsed.status();
  }
  if (Status policy = ValidatePolicy(config.policy); !policy.ok()) return policy;
  return ValidatePanels(config, ValidatePolicy);
}

std::string PolicyNumberText(double value) { return PolicyNumber(value).dump(); }

Result<ModelsConfig> ParseModelsConfig(std::string_view bytes, std::string_view path) {
  const std::string prefix = "Invalid " + std::string(path) + ": ";
  json root;
  try {
    root = json::parse(bytes);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number overflow
    return Invalid(prefix + "not valid JSON (" + e.what() + ")");
  }
  Result<ModelsConfig> config = FromJson(root);
  if (!config.ok()) return Invalid(prefix + config.status().message());
  return config;
}

Result<std::string> SerializeModelsConfig(const ModelsConfig& config) {
  if (Status s = ValidateModelsConfig(config); !s.ok()) return s;
  nlohmann::ordered_json root;
  const bool v3 = config.policy.stall_seconds.has_value() || config.policy.adaptive ||
                  config.policy.order_check != OrderCheck::kOff || config.policy.evaluator_tools ||
                  config.policy.keep_warm_seconds > 0 || HasPanels(config);
  const bool v1 = config.policy.IsDefault() && !v3;
  root["schema_version"] = v1 ? kModelsSchemaV1 : v3 ? kModelsSchemaV3 : kModelsSchemaV2;
  root["candidates"] = config.candidates;
  root[SlotId(Slot::kEvaluator)] = config.evaluator;
  root[SlotId(Slot::kMerger)] = config.merger;
  if (!config.policy.IsDefault()) root["policy"] = PolicyJson(config.policy);
  PanelsToJson(config, PolicyJson, root);
  return root.dump(2) + "\n";  // UTF-8 already checked by ValidateModelsConfig
}

}  // namespace pi_fusion::config
