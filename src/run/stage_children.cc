#include "run/stage_children.h"

#include <utility>

#include "process/child_command.h"
#include "run/resume_inputs.h"
#include "run/run_cost_cap.h"
#include "run/run_failure.h"
#include "run/stage_watch.h"
#include "store/attempt_files.h"
#include "store/manifest.h"
#include "workflow/stage_inputs.h"
#include "workflow/stage_prompts.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {
namespace {

// Signs of life of a stage child while it runs (stage_watch.h).
process::ProgressCallback Watch(const RunContext& ctx, const StageChild& child) {
  const PreparedRun& run = ctx.run;
  const std::string journal =
      child.tools.empty() ? ""
                          : run.store->run_dir() + "/" +
                                store::AttemptFileName(child.key, store::AttemptFile::kToolCalls);
  return WatchStageChild(ctx.observer, *run.seams.clock, *run.seams.fs, child.key, journal);
}

}  // namespace

bool EvaluatorTools(const RunContext& ctx) {
  return workflow::EvaluatorHasTools(ctx.Spec(), ctx.run.policy.evaluator_tools);
}

std::string EvaluatorPrompt(const RunContext& ctx) {
  return workflow::EvaluatorSystemPromptOf(ctx.Spec(), CandidateSetOf(ctx.run),
                                           EvaluatorTools(ctx));
}

std::string RepairPrompt(const RunContext& ctx) {
  return workflow::RepairSystemPromptOf(ctx.Spec(), CandidateSetOf(ctx.run), EvaluatorTools(ctx));
}

std::string MergerPrompt(const RunContext& ctx) {
  std::string prompt =
      workflow::MergerSystemPromptOf(ctx.Spec(), CandidateSetOf(ctx.run), EvaluatorTools(ctx));
  // Only the fusion sequence runs the order check; a run without it keeps its prompt byte for byte.
  if (ctx.run.policy.order_check == config::OrderCheck::kOnConflict &&
      ctx.Spec().shape == workflow::StageShape::kFusion) {
    prompt += workflow::OrderCheckMergerText();
  }
  return prompt;
}

StageChild CandidateChild(const RunContext& ctx, int slot) {
  StageChild child;
  child.key = {Stage::kCandidate, slot, 1};
  child.route = kAllSlots[slot - 1];
  child.capability = ctx.Spec().candidate_capability;
  child.tools = process::CapabilityTools(child.capability);
  child.role = Role::kCandidate;
  child.output = workflow::OutputKind::kCandidate;
  child.system_prompt = workflow::CandidateSystemPromptOf(ctx.Spec());
  child.stdin_text = workflow::CandidateStdin(ctx.run.canonical_input);
  child.request_signal_fd = ctx.warm.signal_fd();
  child.cost_allowance_usd = ctx.candidate_allowance;
  child.watch = Watch(ctx, child);
  return child;
}

namespace {

// A child on the evaluator's route answering strict JSON: the evaluation, the agreement check
// and the order check, each recorded under its own stage.
StageChild JudgeRouteChild(const RunContext& ctx, Stage stage, int attempt, Role role,
                           std::string system_prompt, std::string input) {
  StageChild child;
  child.key = {stage, std::nullopt, attempt};
  child.route = Slot::kEvaluator;
  child.role = role;
  child.output = workflow::OutputKind::kEvaluator;
  child.system_prompt = std::move(system_prompt);
  child.stdin_text = std::move(input);
  child.watch = Watch(ctx, child);
  return child;
}

}  // namespace

StageChild EvaluatorChild(const RunContext& ctx, int attempt, std::string system_prompt,
                          std::string input) {
  StageChild child = JudgeRouteChild(ctx, Stage::kEvaluation, attempt,
                                     attempt == 1 ? Role::kEvaluator : Role::kRepair,
                                     std::move(system_prompt), std::move(input));
  // policy.evaluator_tools: the evaluator (never its repair, which only fixes JSON) gets the
  // candidates' read-only tools, under the same sealed audit log and its own budget.
  if (attempt == 1 && EvaluatorTools(ctx)) {
    child.capability = ctx.Spec().candidate_capability;
    child.tools = process::CapabilityTools(child.capability);
    child.watch = Watch(ctx, child);
  }
  return child;
}

StageChild AgreementChild(const RunContext& ctx, int attempt, std::string system_prompt,
                          std::string input) {
  return JudgeRouteChild(ctx, Stage::kAgreement, attempt,
                         attempt == 1 ? Role::kEvaluator : Role::kRepair, std::move(system_prompt),
                         std::move(input));
}

StageChild OrderCheckChild(const RunContext& ctx, int attempt, std::string system_prompt,
                           std::string input) {
  return JudgeRouteChild(ctx, Stage::kOrderCheck, attempt, Role::kRepair, std::move(system_prompt),
                         std::move(input));
}

StageChild MergerChild(const RunContext& ctx, std::string system_prompt, std::string input) {
  StageChild child;
  child.key = {Stage::kMerge, std::nullopt, 1};
  child.route = Slot::kMerger;
  child.role = Role::kMerger;
  child.output = workflow::OutputKind::kMerger;
  child.system_prompt = std::move(system_prompt);
  child.stdin_text = std::move(input);
  child.watch = Watch(ctx, child);
  return child;
}

bool StartCandidateStage(RunContext& ctx) {
  if (Status s = ctx.run.store->Transition(store::RunState::kCandidatesRunning); !s.ok()) {
    RecordFailure(ctx, s, std::nullopt, std::nullopt, std::nullopt);
    return false;
  }
  ctx.observer.Progress({ProgressEvent::kCandidatesRunning, 0, "candidates running"});
  // The evaluator and the merger start warm once the candidates are past their start-up; their
  // command is final now (the system prompts do not depend on the candidates' answers).
  // An adaptive run starts candidates 1 and 2 only.
  const int first_asked = ctx.run.policy.adaptive ? 2 : static_cast<int>(workflow::kCandidateCount);
  int running = 0;
  for (int slot = 1; slot <= first_asked; ++slot) {
    if (ReusedCandidateOf(ctx.run, slot) == nullptr) ++running;
  }
  ctx.warm.Arm(EvaluatorChild(ctx, 1, EvaluatorPrompt(ctx), ""),
               MergerChild(ctx, MergerPrompt(ctx), ""), ctx.cancel, running);
  SplitCostCap(ctx);
  return true;
}

}  // namespace pi_fusion::run
