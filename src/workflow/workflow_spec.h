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

// The shape of the stages after the candidates: the prompt set, the blind input (with or without
// validation source findings), the evaluation's scope (with or without finding accounting), and
// how the answer is made (merged text, or a host-rendered validation report).
enum class StageShape { kFusion, kValidation };

// What one failed candidate does to the run (read by the orchestrator's candidate phase).
enum class CandidateFailureRule {
  kFailFast,  // under the run's quorum (candidate_quorum.h): quorum 3 (the default) fails the run
              // at once and stops its siblings; quorum 2 may go on from two verified answers
  kMinority,  // validate: one unusable reviewer of three is dropped and named; two fail the run;
              // the quorum policy does not apply
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

// "session_projection", "clean_task": the manifest's `context.policy`.
std::string_view ContextPolicyName(ContextPolicy policy);

// The system prompts of each stage, by the row's capability and stage shape. `set` words the
// fusion-shaped evaluator, repair and merger prompts for a quorum-2 run (validate's prompts
// always allow two or three reviews).
// `evaluator_tools`: the run's evaluator has tools (EvaluatorHasTools); its evaluator, repair and
// merger prompts then speak of the checked claims (stage_prompts.h). false: today's prompts, byte
// for byte.
std::string CandidateSystemPromptOf(const WorkflowSpec& spec);
std::string EvaluatorSystemPromptOf(const WorkflowSpec& spec,
                                    CandidateSet set = CandidateSet::kThree,
                                    bool evaluator_tools = false);
std::string RepairSystemPromptOf(const WorkflowSpec& spec, CandidateSet set = CandidateSet::kThree,
                                 bool evaluator_tools = false);
std::string MergerSystemPromptOf(const WorkflowSpec& spec, CandidateSet set = CandidateSet::kThree,
                                 bool evaluator_tools = false);

// Whether a run of `spec` under policy.evaluator_tools = `policy_on` gives its evaluator the
// candidates' tools: the workflows whose candidates have tools (investigate, research, validate);
// a reason run has none, with or without the policy.
bool EvaluatorHasTools(const WorkflowSpec& spec, bool policy_on);

// The tools a Fusion child must never run: Pi's mutating tools and every tool of this package.
std::vector<std::string> ChildDeniedTools();

}  // namespace pi_fusion::workflow
