// Candidates that run on one model. Three answers of one model share its blind spots, so their
// agreement is weaker evidence than agreement between different models; the receipt, the run's
// views, bg_result and /fusion-models say so. All three on one model is the default (every slot
// `$current`) and gets a warning; two of three a softer note.
//
// Pure functions; thread-safe.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace pi_fusion::config {

struct SharedModel {
  std::string model;       // "provider/model"
  std::vector<int> slots;  // the candidate slots (1-based) on it: all three, or two
  bool operator==(const SharedModel&) const = default;
};

// The candidates on one model when two or three share one; none when all three differ. Empty
// ids (a model not known) never count as shared.
std::optional<SharedModel> SharedCandidateModel(const std::array<std::string, 3>& models);

// What to tell the person: a warning for three, a note for two.
std::string SharedModelText(const SharedModel& shared);

}  // namespace pi_fusion::config
