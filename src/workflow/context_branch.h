// Selection of the model-visible part of a Pi session branch, before projection.
//
// Input is the host's current branch exactly as `sessionManager.getBranch()` returns it (root to
// leaf, every entry type; spec/PI_HOST.md §8). Selection mirrors what Pi itself would send to the
// model from that branch (its buildSessionProjection), so the candidates see the same history the
// parent model saw:
//   - with an active Fusion tool call, the assistant message holding that call and every entry
//     after it are cut off (the call itself, its sibling calls and any sibling results);
//   - after the newest compaction only its summary, the entries from its firstKeptEntryId up to
//     it (system messages excepted) and the entries after it remain;
//   - context_edit entries are applied (the latest edit of a target wins; null removes it);
//   - state-only entries (model_change, thinking_level_change, usage, custom, label,
//     session_info, context_edit) contribute nothing; branch summaries with empty text neither.
// An entry type this policy does not know fails with context_policy_unsupported_block; a branch
// that is not an array of entries with string `type` and `id` fails with context_capture_failed.
//
// Internal to the workflow layer. Pure; thread-compatible.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

// One selected entry that contributes model-visible content.
struct ContextUnit {
  size_t branch_index = 0;  // position in the host's branch array, for error messages
  std::string entry_id;
  std::string type;  // "message" | "custom_message" | "compaction" | "branch_summary"
  const nlohmann::json* entry = nullptr;  // borrowed from the branch passed to SelectContext
  // The replacement content of the latest context_edit targeting this entry, if any.
  std::optional<nlohmann::json> edited_content;
};

struct SelectedContext {
  std::vector<ContextUnit> units;               // in branch order; a compaction, if any, first
  size_t entry_count = 0;                       // entries in the host's branch
  std::optional<std::string> leaf_id;           // id of the branch's last entry
  std::optional<std::string> compaction_id;     // the newest compaction applied
  std::vector<std::string> excluded_entry_ids;  // cut off with the active tool call
};

// REQUIRES: `branch` outlives the returned units (they point into it).
Result<SelectedContext> SelectContext(const nlohmann::json& branch,
                                      const std::optional<std::string>& active_tool_call_id);

// "branch[3] (entry 1a2b3c4d)": how error messages name an entry.
std::string EntryLabel(size_t branch_index, const std::string& entry_id);

}  // namespace pi_fusion::workflow
