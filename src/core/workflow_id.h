// The Fusion workflows as a type: the one list of their names. Every layer that needs to tell
// workflows apart takes a `Workflow`; the names appear only where they cross a boundary (tool
// schemas, run ids, manifests, texts). What each workflow does is its row in
// workflow/workflow_spec.h; docs/workflow.md says what a new workflow needs.
//
// In core rather than schema because the run store (which validates run ids, below schema) needs
// the names too. Pure; thread-safe.
#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace pi_fusion {

enum class Workflow { kReason, kInvestigate, kResearch, kValidate };

inline constexpr std::array<Workflow, 4> kAllWorkflows = {Workflow::kReason, Workflow::kInvestigate,
                                                          Workflow::kResearch, Workflow::kValidate};

// "reason", "investigate", "research", "validate": run ids, manifests, tool names.
constexpr std::string_view Name(Workflow workflow) {
  switch (workflow) {
    case Workflow::kReason:
      return "reason";
    case Workflow::kInvestigate:
      return "investigate";
    case Workflow::kResearch:
      return "research";
    case Workflow::kValidate:
      return "validate";
  }
  return "";
}

// The workflow named `name`; nullopt for any other text.
constexpr std::optional<Workflow> ParseWorkflow(std::string_view name) {
  for (Workflow workflow : kAllWorkflows) {
    if (Name(workflow) == name) return workflow;
  }
  return std::nullopt;
}

}  // namespace pi_fusion
