#include "config/models_config.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/utf8.h"

namespace pi_fusion::config {

std::string_view SlotLabel(Slot slot) {
  switch (slot) {
    case Slot::kCandidate1:
      return "Candidate 1";
    case Slot::kCandidate2:
      return "Candidate 2";
    case Slot::kCandidate3:
      return "Candidate 3";
    case Slot::kEvaluator:
      return "Evaluator";
    case Slot::kMerger:
      break;
  }
  return "Merger";
}

std::string_view SlotRole(Slot slot) {
  switch (slot) {
    case Slot::kCandidate1:
      return "candidate-1";
    case Slot::kCandidate2:
      return "candidate-2";
    case Slot::kCandidate3:
      return "candidate-3";
    case Slot::kEvaluator:
      return "evaluator";
    case Slot::kMerger:
      break;
  }
  return "merger";
}

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

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 4> kKeys = {"schema_version", "candidates", "evaluator",
                                                   "merger"};

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

Status CheckKeys(const json& root) {
  std::vector<std::string> unknown;
  for (const auto& item : root.items()) {
    if (std::find(kKeys.begin(), kKeys.end(), item.key()) == kKeys.end()) {
      unknown.push_back(item.key());
    }
  }
  if (!unknown.empty()) return Invalid("contains unsupported key(s): " + JoinSorted(unknown));
  std::string missing;
  for (std::string_view key : kKeys) {
    if (!root.contains(key)) missing += (missing.empty() ? "" : ", ") + std::string(key);
  }
  if (!missing.empty()) return Invalid("missing required key(s): " + missing);
  return Status();
}

Result<ModelsConfig> FromJson(const json& root) {
  if (!root.is_object()) return Invalid("the file must hold a JSON object");
  if (Status keys = CheckKeys(root); !keys.ok()) return keys;
  const json& version = root["schema_version"];
  if (!version.is_string() || version.get<std::string>() != kModelsSchema) {
    return Invalid("schema_version must be \"" + std::string(kModelsSchema) + "\" (found " +
                   version.dump() + ")");
  }
  const json& candidates = root["candidates"];
  if (!candidates.is_array() || candidates.size() != 3) {
    const std::string found =
        candidates.is_array() ? std::to_string(candidates.size()) + " entries" : "no array";
    return Invalid("candidates must list exactly 3 model selections (found " + found + ")");
  }
  ModelsConfig config;
  for (Slot slot : kAllSlots) {
    const json& value = slot == Slot::kEvaluator ? root["evaluator"]
                        : slot == Slot::kMerger  ? root["merger"]
                                                 : candidates[static_cast<size_t>(slot)];
    if (!value.is_string()) return Invalid(std::string(SlotLabel(slot)) + " must be a string");
    config.selection(slot) = value.get<std::string>();
  }
  if (Status s = ValidateModelsConfig(config); !s.ok()) return s;
  return config;
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

Status ValidateModelsConfig(const ModelsConfig& config) {
  for (Slot slot : kAllSlots) {
    Result<Selection> parsed = ParseSelection(slot, config.selection(slot));
    if (!parsed.ok()) return parsed.status();
  }
  return Status();
}

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
  root["schema_version"] = kModelsSchema;
  root["candidates"] = config.candidates;
  root["evaluator"] = config.evaluator;
  root["merger"] = config.merger;
  return root.dump(2) + "\n";  // UTF-8 already checked by ValidateModelsConfig
}

}  // namespace pi_fusion::config
