#include "workflow/context_branch.h"

#include <map>
#include <string_view>

#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

Status CaptureError(std::string message) {
  return Status::Error(std::string(kContextCaptureFailed), std::move(message));
}

bool IsStateOnly(std::string_view type) {
  return type == "model_change" || type == "thinking_level_change" || type == "usage" ||
         type == "custom" || type == "label" || type == "session_info" || type == "context_edit";
}

bool IsKnownType(std::string_view type) {
  return IsStateOnly(type) || type == "message" || type == "custom_message" ||
         type == "compaction" || type == "branch_summary";
}

bool IsSystemMessage(const json& entry) {
  if (entry["type"] != "message") return false;
  const auto message = entry.find("message");
  return message != entry.end() && message->is_object() && message->value("role", "") == "system";
}

// True when `entry` is an assistant message holding a toolCall block with id `call_id`.
bool HoldsToolCall(const json& entry, const std::string& call_id) {
  if (entry["type"] != "message") return false;
  const auto message = entry.find("message");
  if (message == entry.end() || !message->is_object()) return false;
  if (message->value("role", "") != "assistant") return false;
  const auto content = message->find("content");
  if (content == message->end() || !content->is_array()) return false;
  for (const json& block : *content) {
    if (block.is_object() && block.value("type", "") == "toolCall" &&
        block.value("id", "") == call_id) {
      return true;
    }
  }
  return false;
}

Status CheckEntryShapes(const json& branch) {
  if (!branch.is_array()) return CaptureError("session branch is not an array of entries");
  for (size_t i = 0; i < branch.size(); ++i) {
    const json& entry = branch[i];
    if (!entry.is_object())
      return CaptureError("branch[" + std::to_string(i) + "] is not an object");
    const auto type = entry.find("type");
    const auto id = entry.find("id");
    if (type == entry.end() || !type->is_string() || id == entry.end() || !id->is_string()) {
      return CaptureError("branch[" + std::to_string(i) + "] has no string `type` and `id`");
    }
    if (!IsKnownType(type->get_ref<const std::string&>())) {
      return Status::Error(std::string(kContextPolicyUnsupportedBlock),
                           EntryLabel(i, id->get<std::string>()) + ": unsupported entry type \"" +
                               type->get<std::string>() + "\"");
    }
  }
  return Status::Ok();
}

// Indices of the entries Pi would send to the model, compaction first (buildContextEntries).
std::vector<size_t> ContextIndices(const json& branch, size_t end,
                                   std::optional<std::string>* compaction_id) {
  std::optional<size_t> compaction;
  for (size_t i = 0; i < end; ++i) {
    if (branch[i]["type"] == "compaction") compaction = i;
  }
  std::vector<size_t> out;
  if (!compaction) {
    for (size_t i = 0; i < end; ++i) out.push_back(i);
    return out;
  }
  const json& head = branch[*compaction];
  *compaction_id = head["id"].get<std::string>();
  out.push_back(*compaction);
  const std::string first_kept = head.value("firstKeptEntryId", "");
  bool kept = false;
  for (size_t i = 0; i < *compaction; ++i) {
    if (branch[i]["id"] == first_kept) kept = true;
    // Older compactions inside the kept range are checkpoints Pi no longer renders.
    if (kept && !IsSystemMessage(branch[i]) && branch[i]["type"] != "compaction") {
      out.push_back(i);
    }
  }
  for (size_t i = *compaction + 1; i < end; ++i) out.push_back(i);
  return out;
}

// Latest context_edit per target among the selected entries. A null replacement removes.
Result<std::map<std::string, json>> CollectEdits(const json& branch,
                                                 const std::vector<size_t>& indices) {
  std::map<std::string, json> edits;
  for (size_t i : indices) {
    const json& entry = branch[i];
    if (entry["type"] != "context_edit") continue;
    const auto target = entry.find("targetId");
    const auto replacement = entry.find("replacement");
    const bool ok_target = target != entry.end() && target->is_string();
    const bool ok_replacement =
        replacement != entry.end() &&
        (replacement->is_null() ||
         (replacement->is_object() && replacement->contains("content") &&
          ((*replacement)["content"].is_string() || (*replacement)["content"].is_array())));
    if (!ok_target || !ok_replacement) {
      return CaptureError(EntryLabel(i, entry["id"].get<std::string>()) +
                          ": malformed context_edit (needs targetId and replacement)");
    }
    edits[target->get<std::string>()] = replacement->is_null() ? json() : (*replacement)["content"];
  }
  return edits;
}

}  // namespace

std::string EntryLabel(size_t branch_index, const std::string& entry_id) {
  return "branch[" + std::to_string(branch_index) + "] (entry " + entry_id + ")";
}

Result<SelectedContext> SelectContext(const json& branch,
                                      const std::optional<std::string>& active_tool_call_id) {
  if (Status s = CheckEntryShapes(branch); !s.ok()) return s;
  SelectedContext out;
  out.entry_count = branch.size();
  if (!branch.empty()) out.leaf_id = branch.back()["id"].get<std::string>();

  size_t end = branch.size();
  if (active_tool_call_id) {
    size_t i = 0;
    while (i < branch.size() && !HoldsToolCall(branch[i], *active_tool_call_id)) ++i;
    if (i == branch.size()) {
      return CaptureError("the active tool call " + *active_tool_call_id +
                          " is not in an assistant message on the session branch");
    }
    end = i;
    for (; i < branch.size(); ++i) out.excluded_entry_ids.push_back(branch[i]["id"]);
  }

  const std::vector<size_t> indices = ContextIndices(branch, end, &out.compaction_id);
  Result<std::map<std::string, json>> edits = CollectEdits(branch, indices);
  if (!edits.ok()) return edits.status();
  for (size_t i : indices) {
    const json& entry = branch[i];
    const std::string type = entry["type"];
    if (IsStateOnly(type)) continue;
    ContextUnit unit{i, entry["id"].get<std::string>(), type, &entry, std::nullopt};
    if (auto edit = edits->find(unit.entry_id); edit != edits->end()) {
      // As in Pi's projectContextEntry: null drops any target, content replaces only the
      // content of user, assistant, toolResult and custom messages.
      if (edit->second.is_null()) continue;
      if (type == "custom_message" || (type == "message" && !IsSystemMessage(entry))) {
        unit.edited_content = edit->second;
      }
    }
    out.units.push_back(std::move(unit));
  }
  return out;
}

}  // namespace pi_fusion::workflow
