#include "store/run_id.h"

#include "core/workflow_id.h"

namespace pi_fusion::store {
namespace {

constexpr size_t kRandomBytes = 16;  // 32 hex digits
constexpr size_t kShortIdDigits = 8;

bool IsLowerHex(std::string_view text) {
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

bool IsWorkflow(std::string_view workflow) { return ParseWorkflow(workflow).has_value(); }

Result<std::string> NewRunId(Workflow workflow, RandomSource& random) {
  auto hex = RandomHex(random, kRandomBytes);
  if (!hex.ok()) return hex.status();
  return std::string(Name(workflow)) + "-" + hex.value();
}

bool IsValidRunId(std::string_view id) {
  const size_t dash = id.find('-');
  if (dash == std::string_view::npos) return false;
  const std::string_view hex = id.substr(dash + 1);
  return IsWorkflow(id.substr(0, dash)) && hex.size() == 2 * kRandomBytes && IsLowerHex(hex);
}

std::string_view RunIdWorkflow(std::string_view id) { return id.substr(0, id.find('-')); }

std::string_view ShortRunId(std::string_view id) {
  const size_t dash = id.find('-');
  return dash == std::string_view::npos ? id : id.substr(dash + 1, kShortIdDigits);
}

bool RunIdMatches(std::string_view id, std::string_view query) {
  if (query.empty()) return false;
  if (id.starts_with(query)) return true;
  const size_t dash = id.find('-');
  return dash != std::string_view::npos && id.substr(dash + 1).starts_with(query);
}

}  // namespace pi_fusion::store
