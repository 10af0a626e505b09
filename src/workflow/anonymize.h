// Anonymization of the three candidates before evaluation: a uniformly random bijection from
// candidate slots 1..3 (configuration order) to the ids A, B and C the evaluator and merger see.
//
// The draw uses an injectable RandomSource; production uses getrandom(2) so the mapping cannot be
// predicted from the configuration or the clock. The map is recorded in the manifest and the
// result details as {"A": slot, "B": slot, "C": slot}.
//
// AnonymousMap is a plain value (thread-compatible); the functions are thread-safe when the
// RandomSource is.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/random_id.h"
#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

struct AnonymousMap {
  // candidate_for_slot[slot - 1] is the id ("A", "B" or "C") of candidate slot `slot`.
  std::array<std::string, 3> candidate_for_slot;

  // The 1-based slot of `candidate_id`, or 0 when it is not in the map.
  int SlotOf(std::string_view candidate_id) const;
  // {"A": slot, "B": slot, "C": slot}
  nlohmann::json ToJson() const;
  bool operator==(const AnonymousMap&) const = default;
};

// Draws one of the six bijections with equal probability (rejection sampling, no modulo bias).
// A source that fails is an orchestration_failed error carrying its message.
Result<AnonymousMap> DrawAnonymousMap(RandomSource& random);

// Reads the recorded form back; orchestration_failed unless it is a bijection of A, B, C onto
// slots 1, 2, 3.
Result<AnonymousMap> AnonymousMapFromJson(const nlohmann::json& value);

}  // namespace pi_fusion::workflow
