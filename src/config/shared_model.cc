#include "config/shared_model.h"

namespace pi_fusion::config {

std::optional<SharedModel> SharedCandidateModel(const std::array<std::string, 3>& models) {
  for (size_t first = 0; first < models.size(); ++first) {
    if (models[first].empty()) continue;
    SharedModel shared{models[first], {static_cast<int>(first) + 1}};
    for (size_t other = first + 1; other < models.size(); ++other) {
      if (models[other] == models[first]) shared.slots.push_back(static_cast<int>(other) + 1);
    }
    if (shared.slots.size() > 1) return shared;
  }
  return std::nullopt;
}

std::string SharedModelText(const SharedModel& shared) {
  if (shared.slots.size() == 3) {
    return "All three candidates run on one model (" + shared.model +
           "), so their agreement is weaker evidence than agreement between different models.";
  }
  return "Candidates " + std::to_string(shared.slots[0]) + " and " +
         std::to_string(shared.slots[1]) + " run on one model (" + shared.model +
         "), so their agreement counts for less.";
}

}  // namespace pi_fusion::config
