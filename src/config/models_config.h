// fusion-models.json: the five model slots of a Fusion run and their file format.
//
//   {"schema_version":"pi-background-tasks.fusion-models.v1",
//    "candidates":[sel, sel, sel], "evaluator": sel, "merger": sel}
// The object is closed (unknown and missing keys are rejected), the version must match, there are
// exactly three candidates, and every selection is "$current" or "provider/model" (a '/' with a
// non-empty provider before the first '/' and a non-empty model after it; model ids may contain
// more slashes), not blank and without leading or trailing white space. Any violation is
// config_invalid with a message naming the slot ("Candidate 2", "Evaluator", ...) and the rule.
// schemas/config/fusion-models.json is the same contract as a JSON Schema (a test checks both
// agree). Values and pure functions; thread-safe.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "config/config_constants.h"
#include "pi_fusion/status.h"

namespace pi_fusion::config {

enum class Slot { kCandidate1, kCandidate2, kCandidate3, kEvaluator, kMerger };
inline constexpr std::array<Slot, 5> kAllSlots = {
    Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3, Slot::kEvaluator, Slot::kMerger};
std::string_view SlotLabel(Slot slot);  // "Candidate 1" ... "Evaluator", "Merger"
std::string_view SlotRole(Slot slot);   // "candidate-1" ... "evaluator", "merger"

// The five selections. Defaults: every slot "$current" (also the meaning of a missing file).
struct ModelsConfig {
  std::array<std::string, 3> candidates = {std::string(kCurrentSelection),
                                           std::string(kCurrentSelection),
                                           std::string(kCurrentSelection)};
  std::string evaluator = std::string(kCurrentSelection);
  std::string merger = std::string(kCurrentSelection);

  const std::string& selection(Slot slot) const;
  std::string& selection(Slot slot);
  bool operator==(const ModelsConfig&) const = default;
};

// A syntactically valid selection.
struct Selection {
  bool is_current = false;
  std::string provider;  // empty when is_current
  std::string model;     // empty when is_current
};

// Checks one selection by the rules above; config_invalid "<Slot> ..." on failure.
Result<Selection> ParseSelection(Slot slot, std::string_view text);

// Checks every slot of `config`; the first failing slot in slot order wins.
Status ValidateModelsConfig(const ModelsConfig& config);

// Parses the file's bytes. `path` only appears in error messages.
Result<ModelsConfig> ParseModelsConfig(std::string_view bytes, std::string_view path);

// The bytes a save writes: keys in the order schema_version, candidates, evaluator, merger,
// two-space indentation, one trailing newline, non-ASCII kept as UTF-8.
// config_invalid when a selection breaks a rule or is not valid UTF-8.
Result<std::string> SerializeModelsConfig(const ModelsConfig& config);

}  // namespace pi_fusion::config
