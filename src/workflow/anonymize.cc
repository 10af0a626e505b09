#include "workflow/anonymize.h"

#include <algorithm>

#include "core/error_codes.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

constexpr int kPermutations = 6;
// The largest multiple of 6 that fits a byte: draws at or above it are rejected, so each of the
// six permutations is hit by exactly 42 byte values.
constexpr int kAcceptBelow = 252;

Status Invalid(const std::string& message) {
  return Status::Error(std::string(kOrchestrationFailed), message);
}

}  // namespace

int AnonymousMap::SlotOf(std::string_view candidate_id) const {
  for (size_t i = 0; i < candidate_for_slot.size(); ++i) {
    if (candidate_for_slot[i] == candidate_id) return static_cast<int>(i) + 1;
  }
  return 0;
}

nlohmann::json AnonymousMap::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  for (size_t i = 0; i < candidate_for_slot.size(); ++i) {
    out[candidate_for_slot[i]] = static_cast<int>(i) + 1;
  }
  return out;
}

Result<AnonymousMap> DrawAnonymousMap(RandomSource& random) {
  uint8_t byte = 0;
  do {
    if (Status s = random.Fill(std::span<uint8_t>(&byte, 1)); !s.ok()) return Invalid(s.message());
  } while (byte >= kAcceptBelow);
  std::array<std::string_view, kCandidateCount> order = kCandidateIds;
  for (int i = 0; i < byte % kPermutations; ++i) std::next_permutation(order.begin(), order.end());
  AnonymousMap map;
  for (size_t i = 0; i < order.size(); ++i) map.candidate_for_slot[i] = std::string(order[i]);
  return map;
}

Result<AnonymousMap> AnonymousMapFromJson(const nlohmann::json& value) {
  if (!value.is_object() || value.size() != kCandidateCount) {
    return Invalid("anonymous map must be an object with keys A, B and C");
  }
  AnonymousMap map;
  for (std::string_view id : kCandidateIds) {
    const auto it = value.find(std::string(id));
    if (it == value.end() || !it->is_number_integer()) {
      return Invalid("anonymous map has no integer slot for " + std::string(id));
    }
    const int64_t slot = it->get<int64_t>();
    if (slot < 1 || slot > static_cast<int64_t>(kCandidateCount) ||
        !map.candidate_for_slot[slot - 1].empty()) {
      return Invalid("anonymous map slots must be 1, 2 and 3, each once");
    }
    map.candidate_for_slot[slot - 1] = std::string(id);
  }
  return map;
}

}  // namespace pi_fusion::workflow
