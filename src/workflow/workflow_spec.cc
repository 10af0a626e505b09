#include "workflow/workflow_spec.h"

#include <array>
#include <cstdlib>

#include "workflow/stage_prompts.h"
#include "workflow/validation_prompts.h"

namespace pi_fusion::workflow {
namespace {

std::array<WorkflowSpec, kAllWorkflows.size()> BuildTable() {
  using schema::FusionTool;
  return {{
      {Workflow::kReason, &FusionTool(Workflow::kReason), Capability::kReason,
       ContextPolicy::kSessionProjection, StageShape::kFusion, false,
       CandidateFailureRule::kFailFast},
      {Workflow::kInvestigate, &FusionTool(Workflow::kInvestigate), Capability::kInspect,
       ContextPolicy::kCleanTask, StageShape::kFusion, false, CandidateFailureRule::kFailFast},
      {Workflow::kResearch, &FusionTool(Workflow::kResearch), Capability::kResearch,
       ContextPolicy::kCleanTask, StageShape::kFusion, true, CandidateFailureRule::kFailFast},
      {Workflow::kValidate, &FusionTool(Workflow::kValidate), Capability::kInspect,
       ContextPolicy::kCleanTask, StageShape::kValidation, false, CandidateFailureRule::kMinority},
  }};
}

}  // namespace

const WorkflowSpec& SpecOf(Workflow workflow) {
  static const std::array<WorkflowSpec, kAllWorkflows.size()> table = BuildTable();
  for (const WorkflowSpec& spec : table) {
    if (spec.workflow == workflow) return spec;
  }
  std::abort();  // every workflow has its row (workflow_spec_test)
}

std::string_view ContextPolicyName(ContextPolicy policy) {
  return policy == ContextPolicy::kSessionProjection ? kSessionProjectionKind : kCleanTaskKind;
}

std::string CandidateSystemPromptOf(const WorkflowSpec& spec) {
  return spec.shape == StageShape::kValidation
             ? ValidationReviewerSystemPrompt()
             : CandidateSystemPrompt(spec.context, spec.candidate_capability);
}

std::string EvaluatorSystemPromptOf(const WorkflowSpec& spec, CandidateSet set,
                                    bool evaluator_tools) {
  std::string prompt = spec.shape == StageShape::kValidation ? ValidationEvaluatorSystemPrompt()
                                                             : EvaluatorSystemPrompt(set);
  if (!evaluator_tools) return prompt;
  return CheckedClaimsEvaluatorPrompt(prompt, spec.candidate_capability);
}

std::string RepairSystemPromptOf(const WorkflowSpec& spec, CandidateSet set, bool evaluator_tools) {
  std::string prompt = spec.shape == StageShape::kValidation ? ValidationRepairSystemPrompt()
                                                             : EvaluationRepairSystemPrompt(set);
  if (!evaluator_tools) return prompt;
  return CheckedClaimsRepairPrompt(prompt);
}

std::string MergerSystemPromptOf(const WorkflowSpec& spec, CandidateSet set, bool evaluator_tools) {
  std::string prompt = spec.shape == StageShape::kValidation ? ValidationMergerSystemPrompt()
                                                             : MergerSystemPrompt(set);
  if (evaluator_tools) prompt += CheckedClaimsMergerText();
  return prompt;
}

bool EvaluatorHasTools(const WorkflowSpec& spec, bool policy_on) {
  return policy_on && spec.candidate_capability != Capability::kReason;
}

std::vector<std::string> ChildDeniedTools() {
  std::vector<std::string> denied = {"bash", "edit", "write", "powershell"};
  for (const std::string& name : schema::PackageToolNames()) denied.push_back(name);
  return denied;
}

}  // namespace pi_fusion::workflow
