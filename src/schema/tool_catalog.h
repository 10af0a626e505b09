// The public tools this package registers with Pi: names, labels, model-facing descriptions and
// their parameter schemas. The schema bytes come from schemas/tools/<name>.json, embedded at build
// time; that file is the single source that docs and tests read too.
//
// Thread-safe: everything here is immutable after first use.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::schema {

struct ToolSpec {
  std::string name;         // e.g. "fusion_reason"
  std::string label;        // human label for Pi's UI, e.g. "Fusion Reason"
  std::string description;  // written for the model that calls the tool
  std::string workflow;     // "reason" | "investigate" | "research" | "validate" | "" (bg_* tools)
  // Pi's promptSnippet: the tool's line in the system prompt's list of available tools.
  std::string prompt_snippet;
  // Pi's promptGuidelines: bullets added to the system prompt's guidelines while the tool is
  // active (when to use it; wait for the notification instead of polling).
  std::vector<std::string> prompt_guidelines;
};

// Every tool this package defines, Fusion tools first. The binding registers a Fusion tool only
// while its workflow runs (workflow::WorkflowRuns).
const std::vector<ToolSpec>& RegisteredTools();

// The tool's MCP-style hints for Pi's `annotations` (Pi 0.99+; older Pis ignore the field):
// readOnlyHint, destructiveHint, idempotentHint, openWorldHint. The Fusion tools are read-only
// toward the workspace (they write only their own run artifacts); fusion_research also reaches
// the open web. bg_kill changes a task's state, so it is not read-only.
nlohmann::json ToolAnnotations(const ToolSpec& tool);

// The tool's closed JSON Schema (the `parameters` object). Returns nullptr for an unknown name.
const nlohmann::json* ToolParameters(std::string_view tool);

// Raw embedded bytes of schemas/tools/<file>; empty for an unknown file. Generated at build time.
std::string_view EmbeddedToolSchema(std::string_view file);

}  // namespace pi_fusion::schema
