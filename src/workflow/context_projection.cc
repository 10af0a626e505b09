#include "workflow/context_projection.h"

#include <array>
#include <string_view>

#include "core/json_text.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "workflow/context_branch.h"
#include "workflow/image_payload.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

// Ledger row kinds, in the fixed order receipts list their counts.
enum class Kind {
  kSystemMessage,
  kAssistantThinking,
  kToolCall,
  kToolResultText,
  kToolResultImage,
  kBashExecution,
  kCustomMessageHidden,
  kUserImage,
  kCustomImage,
};
constexpr std::array<std::string_view, 9> kKindNames = {
    "system_message",        "assistant_thinking", "tool_call",
    "tool_result_text",      "tool_result_image",  "bash_execution",
    "custom_message_hidden", "user_image",         "custom_image"};

std::string_view KindName(Kind kind) { return kKindNames[static_cast<size_t>(kind)]; }

Status CaptureError(std::string message) {
  return Status::Error(std::string(kContextCaptureFailed), std::move(message));
}
Status Unsupported(std::string message) {
  return Status::Error(std::string(kContextPolicyUnsupportedBlock), std::move(message));
}

// Optional descriptive fields of a ledger row; empty means absent.
struct RowExtras {
  std::string tool_name;
  std::string tool_call_id;
  std::string mime_type;
  std::string custom_type;
};

// Accumulates the conversation and the ledger. Consecutive omitted rows share one receipt.
class Projector {
 public:
  void AddText(std::string_view role, const std::string& text) {
    Flush();
    if (!text.empty()) conversation_.push_back({{"role", role}, {"text", text}});
  }

  void AddOmission(Kind kind, const ContextUnit& unit, std::optional<size_t> block,
                   std::string_view payload, const RowExtras& extras) {
    if (!run_first_) run_first_ = rows_.size();
    AddRow(kind, unit, block, payload, extras);
  }

  // An image that stays visible as a marker: its row is ledger-only, its marker is text.
  void AddImage(Kind kind, std::string_view role, const ContextUnit& unit, size_t block,
                const std::string& mime_type, std::string_view decoded) {
    Flush();
    AddRow(kind, unit, block, decoded, RowExtras{"", "", mime_type, ""});
    AddText(role, "[image: " + mime_type + ", " + std::to_string(decoded.size()) + " bytes, " +
                      Sha256Ref(decoded) + "]");
  }

  void Flush() {
    if (!run_first_) return;
    conversation_.push_back({{"role", "omission"}, {"text", Receipt(*run_first_, rows_.size())}});
    run_first_.reset();
  }

  json& conversation() { return conversation_; }
  json& rows() { return rows_; }

 private:
  void AddRow(Kind kind, const ContextUnit& unit, std::optional<size_t> block,
              std::string_view payload, const RowExtras& extras) {
    json row = {{"index", rows_.size()},     {"kind", KindName(kind)},
                {"entry_id", unit.entry_id}, {"block", block ? json(*block) : json(nullptr)},
                {"bytes", payload.size()},   {"sha256", Sha256Ref(payload)}};
    if (!extras.tool_name.empty()) row["tool_name"] = extras.tool_name;
    if (!extras.tool_call_id.empty()) row["tool_call_id"] = extras.tool_call_id;
    if (!extras.mime_type.empty()) row["mime_type"] = extras.mime_type;
    if (!extras.custom_type.empty()) row["custom_type"] = extras.custom_type;
    rows_.push_back(std::move(row));
  }

  // "[omitted: tool_call=2, tool_result_text=2; 812 bytes; ledger 3-6; sha256:<hex>]": counts
  // in Kind order, the run's payload bytes, its ledger indices and the hash of its rows.
  std::string Receipt(size_t first, size_t end) const {
    std::array<size_t, kKindNames.size()> counts{};
    size_t bytes = 0;
    json run = json::array();
    for (size_t i = first; i < end; ++i) {
      const json& row = rows_[i];
      const std::string& kind = row["kind"].get_ref<const std::string&>();
      for (size_t k = 0; k < kKindNames.size(); ++k) counts[k] += kind == kKindNames[k];
      bytes += row["bytes"].get<size_t>();
      run.push_back(row);
    }
    std::string text = "[omitted: ";
    bool first_kind = true;
    for (size_t k = 0; k < counts.size(); ++k) {
      if (counts[k] == 0) continue;
      text +=
          (first_kind ? "" : ", ") + std::string(kKindNames[k]) + "=" + std::to_string(counts[k]);
      first_kind = false;
    }
    text += "; " + std::to_string(bytes) + " bytes; ledger " + std::to_string(first);
    if (end - first > 1) text += "-" + std::to_string(end - 1);
    return text + "; " + Sha256Ref(CanonicalJson(run)) + "]";
  }

  json conversation_ = json::array();
  json rows_ = json::array();
  std::optional<size_t> run_first_;
};

std::string BlockLabel(const ContextUnit& unit, size_t block) {
  return EntryLabel(unit.branch_index, unit.entry_id) + " content[" + std::to_string(block) + "]";
}

// Message content as a block array. As in Pi's sessionEntryToContextMessages, a missing or null
// content (old or hand-edited session files) is no blocks, and a bare string (user and custom
// content; context edits may store one for any role) is one text block.
Result<json> ContentBlocks(const ContextUnit& unit, const json* content) {
  if (content == nullptr || content->is_null()) return json::array();
  if (content->is_string()) return json::array({{{"type", "text"}, {"text", *content}}});
  if (content->is_array()) return *content;
  return CaptureError(EntryLabel(unit.branch_index, unit.entry_id) +
                      ": message content is neither a string nor an array");
}

const std::string* StringField(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

// The block's type, or an error when the block is not an object with a string type and the
// fields that type requires.
Result<std::string> BlockType(const ContextUnit& unit, const json& block, size_t k) {
  const std::string* type = block.is_object() ? StringField(block, "type") : nullptr;
  if (type == nullptr) return CaptureError(BlockLabel(unit, k) + ": block has no string type");
  const bool ok =
      (*type == "text" && StringField(block, "text")) ||
      (*type == "thinking" && StringField(block, "thinking")) ||
      (*type == "image" && StringField(block, "data") && StringField(block, "mimeType")) ||
      (*type == "toolCall" && StringField(block, "id") && StringField(block, "name") &&
       block.contains("arguments"));
  const bool known =
      *type == "text" || *type == "thinking" || *type == "image" || *type == "toolCall";
  if (known && !ok) return CaptureError(BlockLabel(unit, k) + ": malformed " + *type + " block");
  return *type;
}

Result<std::string> DecodedImage(const ContextUnit& unit, const json& block, size_t k) {
  std::optional<std::string> decoded = DecodeBase64(block["data"].get_ref<const std::string&>());
  if (!decoded) return CaptureError(BlockLabel(unit, k) + ": image data is not valid base64");
  return std::move(*decoded);
}

// User text and images; also the content of displayed custom messages (role "custom").
Status ProjectVisibleContent(Projector& p, const ContextUnit& unit, const json& blocks,
                             std::string_view role, Kind image_kind) {
  for (size_t k = 0; k < blocks.size(); ++k) {
    Result<std::string> type = BlockType(unit, blocks[k], k);
    if (!type.ok()) return type.status();
    if (*type == "text") {
      p.AddText(role, blocks[k]["text"]);
    } else if (*type == "image") {
      Result<std::string> image = DecodedImage(unit, blocks[k], k);
      if (!image.ok()) return image.status();
      p.AddImage(image_kind, role, unit, k, blocks[k]["mimeType"], *image);
    } else {
      return Unsupported(BlockLabel(unit, k) + ": unsupported block type \"" + *type + "\" in " +
                         std::string(role) + " content");
    }
  }
  return Status::Ok();
}

Status ProjectAssistant(Projector& p, const ContextUnit& unit, const json& blocks) {
  for (size_t k = 0; k < blocks.size(); ++k) {
    Result<std::string> type = BlockType(unit, blocks[k], k);
    if (!type.ok()) return type.status();
    const json& block = blocks[k];
    if (*type == "text") {
      p.AddText("assistant", block["text"]);
    } else if (*type == "thinking") {
      p.AddOmission(Kind::kAssistantThinking, unit, k,
                    block["thinking"].get_ref<const std::string&>(), {});
    } else if (*type == "toolCall") {
      p.AddOmission(Kind::kToolCall, unit, k, CanonicalJson(block["arguments"]),
                    RowExtras{block["name"], block["id"], "", ""});
    } else {
      return Unsupported(BlockLabel(unit, k) + ": unsupported block type \"" + *type +
                         "\" in assistant content");
    }
  }
  return Status::Ok();
}

Status ProjectToolResult(Projector& p, const ContextUnit& unit, const json& message,
                         const json& blocks) {
  const std::string* name = StringField(message, "toolName");
  const std::string* call_id = StringField(message, "toolCallId");
  if (name == nullptr || call_id == nullptr) {
    return CaptureError(EntryLabel(unit.branch_index, unit.entry_id) +
                        ": toolResult message has no string toolName and toolCallId");
  }
  for (size_t k = 0; k < blocks.size(); ++k) {
    Result<std::string> type = BlockType(unit, blocks[k], k);
    if (!type.ok()) return type.status();
    if (*type == "text") {
      p.AddOmission(Kind::kToolResultText, unit, k, blocks[k]["text"].get_ref<const std::string&>(),
                    RowExtras{*name, *call_id, "", ""});
    } else if (*type == "image") {
      Result<std::string> image = DecodedImage(unit, blocks[k], k);
      if (!image.ok()) return image.status();
      p.AddOmission(Kind::kToolResultImage, unit, k, *image,
                    RowExtras{*name, *call_id, blocks[k]["mimeType"], ""});
    } else {
      return Unsupported(BlockLabel(unit, k) + ": unsupported block type \"" + *type +
                         "\" in toolResult content");
    }
  }
  return Status::Ok();
}

// A custom message (entry type custom_message, or a message entry with role "custom").
Status ProjectCustom(Projector& p, const ContextUnit& unit, const json& holder,
                     const json& blocks) {
  const std::string* custom_type = StringField(holder, "customType");
  const auto display = holder.find("display");
  if (custom_type == nullptr || display == holder.end() || !display->is_boolean()) {
    return CaptureError(EntryLabel(unit.branch_index, unit.entry_id) +
                        ": custom message has no string customType and boolean display");
  }
  if (display->get<bool>()) {
    return ProjectVisibleContent(p, unit, blocks, "custom", Kind::kCustomImage);
  }
  p.AddOmission(Kind::kCustomMessageHidden, unit, std::nullopt, CanonicalJson(blocks),
                RowExtras{"", "", "", *custom_type});
  return Status::Ok();
}

Status ProjectMessage(Projector& p, const ContextUnit& unit) {
  const auto found = unit.entry->find("message");
  const std::string* role =
      found != unit.entry->end() && found->is_object() ? StringField(*found, "role") : nullptr;
  if (role == nullptr) {
    return CaptureError(EntryLabel(unit.branch_index, unit.entry_id) +
                        ": message entry has no message object with a string role");
  }
  const json& message = *found;
  if (*role == "system") {
    p.AddOmission(Kind::kSystemMessage, unit, std::nullopt, CanonicalJson(message), {});
    return Status::Ok();
  }
  if (*role == "bashExecution") {
    // `!!` executions are excluded from the model's context by Pi itself.
    if (message.value("excludeFromContext", false)) return Status::Ok();
    p.AddOmission(Kind::kBashExecution, unit, std::nullopt, CanonicalJson(message), {});
    return Status::Ok();
  }
  const bool known =
      *role == "user" || *role == "assistant" || *role == "toolResult" || *role == "custom";
  if (!known) {
    return Unsupported(EntryLabel(unit.branch_index, unit.entry_id) +
                       ": unsupported message role \"" + *role + "\"");
  }
  const auto content = message.find("content");
  Result<json> blocks =
      ContentBlocks(unit, unit.edited_content ? &*unit.edited_content
                                              : (content == message.end() ? nullptr : &*content));
  if (!blocks.ok()) return blocks.status();
  if (*role == "user") return ProjectVisibleContent(p, unit, *blocks, "user", Kind::kUserImage);
  if (*role == "assistant") return ProjectAssistant(p, unit, *blocks);
  if (*role == "toolResult") return ProjectToolResult(p, unit, message, *blocks);
  return ProjectCustom(p, unit, message, *blocks);
}

Status ProjectSummary(Projector& p, const ContextUnit& unit, std::string_view role) {
  const json& entry = *unit.entry;
  const std::string* summary = StringField(entry, "summary");
  if (summary == nullptr) {
    return CaptureError(EntryLabel(unit.branch_index, unit.entry_id) + ": " + unit.type +
                        " entry has no string summary");
  }
  const auto system = entry.find("systemMessage");
  if (system != entry.end() && !system->is_null()) {
    p.AddOmission(Kind::kSystemMessage, unit, std::nullopt, CanonicalJson(*system), {});
  }
  p.AddText(role, *summary);
  return Status::Ok();
}

Status ProjectUnit(Projector& p, const ContextUnit& unit) {
  if (unit.type == "message") return ProjectMessage(p, unit);
  if (unit.type == "compaction") return ProjectSummary(p, unit, "compaction_summary");
  if (unit.type == "branch_summary") return ProjectSummary(p, unit, "branch_summary");
  const auto content = unit.entry->find("content");
  Result<json> blocks = ContentBlocks(
      unit, unit.edited_content ? &*unit.edited_content
                                : (content == unit.entry->end() ? nullptr : &*content));
  if (!blocks.ok()) return blocks.status();
  return ProjectCustom(p, unit, *unit.entry, *blocks);
}

json Totals(const json& rows) {
  json by_kind = json::object();
  for (std::string_view name : kKindNames) by_kind[name] = {{"count", 0}, {"bytes", 0}};
  size_t bytes = 0;
  for (const json& row : rows) {
    json& slot = by_kind[row["kind"].get<std::string>()];
    slot["count"] = slot["count"].get<size_t>() + 1;
    slot["bytes"] = slot["bytes"].get<size_t>() + row["bytes"].get<size_t>();
    bytes += row["bytes"].get<size_t>();
  }
  return {{"count", rows.size()}, {"bytes", bytes}, {"by_kind", std::move(by_kind)}};
}

json OptionalString(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json LedgerValue(const SelectedContext& selected, const SessionProjectionRequest& request,
                 json rows, json totals) {
  return {{"schema_version", kContextLedgerSchema},
          {"policy", kSessionProjectionPolicy},
          {"branch",
           {{"entry_count", selected.entry_count},
            {"leaf_id", OptionalString(selected.leaf_id)},
            {"active_tool_call_id", OptionalString(request.active_tool_call_id)},
            {"excluded_entry_ids", selected.excluded_entry_ids},
            {"compaction_id", OptionalString(selected.compaction_id)}}},
          {"omissions", std::move(rows)},
          {"totals", std::move(totals)}};
}

Result<SessionProjection> Project(const SessionProjectionRequest& request) {
  Result<SelectedContext> selected = SelectContext(request.branch, request.active_tool_call_id);
  if (!selected.ok()) return selected.status();
  Projector projector;
  for (const ContextUnit& unit : selected->units) {
    if (Status s = ProjectUnit(projector, unit); !s.ok()) return s;
  }
  projector.Flush();

  json totals = Totals(projector.rows());
  json omissions = {{"count", totals["count"]}, {"bytes", totals["bytes"]}};
  Result<CanonicalDocument> ledger = MakeCanonicalDocument(
      LedgerValue(*selected, request, std::move(projector.rows()), std::move(totals)),
      kContextCaptureFailed, "the context ledger");
  if (!ledger.ok()) return ledger.status();
  omissions["ledger_sha256"] = Sha256Ref(ledger->bytes);
  json input = {{"schema_version", kInputSchema},
                {"workflow", Name(request.request.workflow)},
                {"cwd", request.cwd},
                {"request", request.request.request},
                {"context",
                 {{"kind", kSessionProjectionKind},
                  {"policy", kSessionProjectionPolicy},
                  {"conversation", std::move(projector.conversation())},
                  {"omissions", std::move(omissions)}}}};
  Result<CanonicalDocument> doc =
      MakeCanonicalDocument(std::move(input), kContextCaptureFailed, "the canonical input");
  if (!doc.ok()) return doc.status();
  return SessionProjection{std::move(doc).value(), std::move(ledger).value()};
}

}  // namespace

Result<SessionProjection> ProjectSession(const SessionProjectionRequest& request) {
  // The row decides, as for the clean task (clean_task.cc); the text names the one workflow
  // whose row says session projection today.
  if (SpecOf(request.request.workflow).context != ContextPolicy::kSessionProjection) {
    return CaptureError("the session projection is for the reason workflow, not \"" +
                        std::string(Name(request.request.workflow)) + "\"");
  }
  if (request.cwd.empty()) return CaptureError("the session's cwd is empty");
  // Hashing a payload serializes host strings; one that is not UTF-8 makes nlohmann throw, and
  // that is a malformed branch rather than a crash.
  try {
    return Project(request);
  } catch (const nlohmann::json::exception& e) {
    return CaptureError("the session branch cannot be projected: " + JsonErrorText(e));
  }
}

}  // namespace pi_fusion::workflow
