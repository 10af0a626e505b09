// The workflows as data: one WorkflowSpec row per workflow, the one place where what tells the
// workflows apart is decided. Every layer above reads the row instead of comparing names; adding a
// workflow is a row here, its tool row and schema (schema/tool_catalog.cc, schemas/tools/), its
// prompts if it has a new stage shape, and its tests (docs/workflow.md).
//
// Pure; thread-safe (the table is immutable).
#pragma once

#include <string>
#include <string_view>

#include "core/workflow_id.h"
#include "schema/tool_catalog.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

// What the candidates get as their input (seed: "clean tasks carry no parent transcript").
enum class ContextPolicy {
  kSessionProjection,  // the conversation's visible text (context_projection.h)
  kCleanTask,          // only the normalized request (clean_task.h)
};

// The shape of the stages after the candidates: the prompt set, the blind input (with or without
// validation source findings), the evaluation's scope (with or without finding accounting), and
// how the answer is made (merged text, or a host-rendered validation report).
enum class StageShape { kFusion, kValidation };

// What one failed candidate does to the run.
enum class CandidateFailureRule {
  kFailFast,  // the run fails at once; its siblings are stopped
  kMinority,  // validate: one unusable reviewer of three is dropped and named; two fail the run
};

struct WorkflowSpec {
  Workflow workflow;
  const schema::ToolSpec* tool;  // name, label, model-facing texts, normalization rules
  Capability candidate_capability;
  ContextPolicy context;
  StageShape shape;
  bool declares_sources;  // preflight writes the source policy before the receipt (research)
  CandidateFailureRule candidate_failure;
};

const WorkflowSpec& SpecOf(Workflow workflow);

// "reason", "inspect", "research": the manifest's `capabilities.candidate`.
std::string_view CapabilityName(Capability capability);
// "session_projection", "clean_task": the manifest's `context.policy`.
std::string_view ContextPolicyName(ContextPolicy policy);

// The system prompts of each stage, by the row's capability and stage shape.
std::string CandidateSystemPromptOf(const WorkflowSpec& spec);
std::string EvaluatorSystemPromptOf(const WorkflowSpec& spec);
std::string RepairSystemPromptOf(const WorkflowSpec& spec);
std::string MergerSystemPromptOf(const WorkflowSpec& spec);

// The tools a Fusion child must never run: Pi's mutating tools and every tool of this package.
std::vector<std::string> ChildDeniedTools();

}  // namespace pi_fusion::workflow
