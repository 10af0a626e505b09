// The public tools this package registers with Pi: names, labels, model-facing descriptions and
// their parameter schemas. The schema bytes come from schemas/tools/<name>.json, embedded at build
// time; that file is the single source that docs and tests read too.
//
// Thread-safe: everything here is immutable after first use.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workflow_id.h"
#include "pi_fusion/status.h"

namespace pi_fusion::schema {

struct ToolSpec {
  std::string name;                  // e.g. "fusion_reason"
  std::string label;                 // human label for Pi's UI, e.g. "Fusion Reason"
  std::string description;           // written for the model that calls the tool
  std::optional<Workflow> workflow;  // the Fusion workflow the tool launches; none for bg_* tools
  // Pi's promptSnippet: the tool's line in the system prompt's list of available tools.
  std::string prompt_snippet;
  // Pi's promptGuidelines: bullets added to the system prompt's guidelines while the tool is
  // active (when to use it; wait for the notification instead of polling).
  std::vector<std::string> prompt_guidelines;
  // The argument that says what a call is about, in one line of a view: the question of a
  // Fusion call ("prompt" or "objective"), the task id of a bg_* call ("taskId").
  const char* headline = "";
  // The workflow's own rules on top of the closed schema (normalize.h): validate's verification
  // contract, research's declared sources; null when there are none.
  Status (*extra_rules)(nlohmann::json& request) = nullptr;
  // A `prompt` key from the retired free-form shape gets this migration message (validate).
  const char* legacy_prompt_message = nullptr;
  // The tool reaches the open web (Pi's openWorldHint).
  bool open_world = false;
};

// Every tool this package defines, Fusion tools first (one per workflow, in kAllWorkflows order).
const std::vector<ToolSpec>& RegisteredTools();

// The tool's MCP-style hints for Pi's `annotations` (Pi 0.99+; older Pis ignore the field):
// readOnlyHint, destructiveHint, idempotentHint, openWorldHint. The Fusion tools are read-only
// toward the workspace (they write only their own run artifacts); fusion_research also reaches
// the open web. bg_kill changes a task's state, so it is not read-only.
nlohmann::json ToolAnnotations(const ToolSpec& tool);

// The Fusion tool of `workflow` (its row above).
const ToolSpec& FusionTool(Workflow workflow);

// The text of `tool`'s headline argument in `args`; empty when it is absent or not a string.
std::string HeadlineOf(const ToolSpec& tool, const nlohmann::json& args);

// The registered tool named `name`; nullptr for any other name.
const ToolSpec* FindTool(std::string_view name);

// The tool this package registered before and retired: never offered again, to anyone.
inline constexpr char kRetiredToolName[] = "fusion_brainstorm";

// Every tool name this package ever registered, the retired fusion_brainstorm included: what a
// Fusion child must never be offered.
std::vector<std::string> PackageToolNames();

// The tool's closed JSON Schema (the `parameters` object). Returns nullptr for an unknown name.
const nlohmann::json* ToolParameters(std::string_view tool);

// Raw embedded bytes of schemas/tools/<file>; empty for an unknown file. Generated at build time.
std::string_view EmbeddedToolSchema(std::string_view file);

}  // namespace pi_fusion::schema
