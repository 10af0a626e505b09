// Usage, cost and model requests per role of a run, summed from the manifest's attempts (each the
// child's own usage records): candidate 1-3, evaluator, repair, merger. Result details, the
// failure summary and the views show these rows; the run total stays the manifest's `usage`.
//
//   role      "candidate" | "evaluator" | "repair" | "merger" (evaluation attempt 2 is the repair)
//   slot      1-3 for candidates, absent otherwise
//   model     the role's route, "provider/model"
//   attempts  the role's attempt rows (children started; a spawn retry is the same attempt)
//   requests  model requests its children sent (AttemptRecord::requests), or null when an attempt
//             that reported usage has no count (a manifest written before counts existed)
//   usage     Pi's Usage summed over the role's attempts (SumUsage)
//   reused_from  a resumed run's role whose every attempt was reused from that run (their usage
//             is that run's, so this row shows none); absent otherwise
// A role appears only when it has an attempt, in the order above.
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/manifest.h"
#include "store/usage.h"

namespace pi_fusion::store {

struct RoleUsage {
  Role role = Role::kCandidate;
  std::optional<int> slot;
  std::string model;
  int attempts = 0;
  std::optional<uint64_t> requests;
  Usage usage;
  std::optional<std::string> reused_from;

  bool operator==(const RoleUsage&) const = default;
};

std::vector<RoleUsage> UsageByRole(const Manifest& manifest);

// The run's model requests: the sum over every attempt, or nullopt when some attempt's count is
// unknown (as for a role's `requests`).
std::optional<uint64_t> ModelRequests(const Manifest& manifest);

// [{role, slot?, model, attempts, requests, usage}] in UsageByRole's order.
nlohmann::json UsageByRoleJson(const std::vector<RoleUsage>& rows);

}  // namespace pi_fusion::store
