#include "store/role_usage.h"

#include <array>

namespace pi_fusion::store {
namespace {

// Rows in display order: candidates 1-3, evaluator, repair, merger.
constexpr size_t kRows = 6;

size_t RowOf(const AttemptKey& key) {
  switch (key.stage) {
    case Stage::kCandidate:
      return static_cast<size_t>(key.slot.value_or(1) - 1);
    case Stage::kEvaluation:
    case Stage::kAgreement:  // on the evaluator's route, as an evaluator (its repair: attempt 2)
      return key.attempt >= 2 ? 4 : 3;  // the repair is the evaluation's attempt 2
    case Stage::kOrderCheck:
      return 3;  // the order check runs on the evaluator's route
    case Stage::kMerge:
      break;
  }
  return 5;
}

// Each row's role, in RowOf's order.
constexpr std::array<Role, kRows> kRowRoles = {Role::kCandidate, Role::kCandidate, Role::kCandidate,
                                               Role::kEvaluator, Role::kRepair,    Role::kMerger};

// A count is known when the child was judged; an attempt with neither usage nor a count never
// got that far (no child ran, or it could not be read) and adds nothing.
bool CountUnknown(const AttemptRecord& a) { return !a.requests && a.usage.has_value(); }

}  // namespace

std::vector<RoleUsage> UsageByRole(const Manifest& m) {
  std::array<RoleUsage, kRows> rows;
  std::array<std::vector<Usage>, kRows> usages;
  for (size_t i = 0; i < kRows; ++i) rows[i].role = kRowRoles[i];
  for (size_t i = 0; i < 3; ++i) {
    rows[i].slot = static_cast<int>(i) + 1;
    rows[i].model = m.models.candidates[i].QualifiedId();
  }
  rows[3].model = rows[4].model = m.models.evaluator.QualifiedId();
  rows[5].model = m.models.merger.QualifiedId();
  for (RoleUsage& row : rows) row.requests = 0;
  std::array<bool, kRows> all_reused;
  all_reused.fill(true);
  for (const AttemptRecord& a : m.attempts) {
    if (!ValidateAttemptKey(a.key).ok()) continue;
    const size_t i = RowOf(a.key);
    RoleUsage& row = rows[i];
    ++row.attempts;
    if (!a.reused_from) all_reused[i] = false;
    if (all_reused[i]) row.reused_from = a.reused_from;
    if (a.usage) usages[i].push_back(*a.usage);
    if (CountUnknown(a)) row.requests.reset();
    if (row.requests && a.requests) *row.requests += *a.requests;
  }
  std::vector<RoleUsage> out;
  for (size_t i = 0; i < kRows; ++i) {
    if (rows[i].attempts == 0) continue;
    rows[i].usage = SumUsage(usages[i]);
    if (!all_reused[i]) rows[i].reused_from.reset();
    out.push_back(std::move(rows[i]));
  }
  return out;
}

std::optional<uint64_t> ModelRequests(const Manifest& m) {
  uint64_t total = 0;
  for (const AttemptRecord& a : m.attempts) {
    if (CountUnknown(a)) return std::nullopt;
    total += a.requests.value_or(0);
  }
  return total;
}

nlohmann::json UsageByRoleJson(const std::vector<RoleUsage>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const RoleUsage& row : rows) {
    nlohmann::json item = {{"role", RoleName(row.role)}};
    if (row.slot) item["slot"] = *row.slot;
    item["model"] = row.model;
    item["attempts"] = row.attempts;
    item["requests"] = row.requests ? nlohmann::json(*row.requests) : nlohmann::json(nullptr);
    item["usage"] = UsageToJson(row.usage);
    if (row.reused_from) item["reused_from"] = *row.reused_from;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace pi_fusion::store
