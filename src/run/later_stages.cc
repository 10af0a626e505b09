#include "run/later_stages.h"

#include <utility>
#include <vector>

#include "core/error_codes.h"
#include "run/child_stage.h"
#include "run/run_cost_cap.h"
#include "run/run_failure.h"
#include "run/run_reuse.h"
#include "run/stage_children.h"
#include "store/json_util.h"
#include "workflow/stage_inputs.h"
#include "workflow/validation_reviewers.h"

namespace pi_fusion::run {
namespace {

// Attempt 1 of the evaluation or the merge, warm when its child was started ahead: within the
// cost cap, the stage's state transition carried into its first row and said, its calibration
// noted. Its answer, or its failure recorded at its stage and attempt 1.
Result<std::string> RunFirstAttempt(RunContext& ctx, StageChild child, store::RunState state,
                                    const ProgressUpdate& progress) {
  const StageChild capped = Capped(ctx, std::move(child));
  if (!WithinCostCap(ctx, capped, std::nullopt)) return ctx.outcome.error;
  ctx.carry.transitions.push_back(state);
  ctx.observer.Progress(progress);
  StageResult result = RunStageChild(ctx.run, capped, ctx.cancel, &ctx.warm, &ctx.carry);
  NoteCalibration(ctx, result, capped.role);
  if (!result.status.ok()) return Fail(ctx, result.status, capped.key.stage, std::nullopt, 1);
  return result.answer;
}

// The one repair child: given the capped error list, it must return a valid evaluation.
workflow::EvaluationCheck Repair(RunContext& ctx, const workflow::CanonicalDocument& blind,
                                 const workflow::EvaluationScope& scope, const std::string& invalid,
                                 const std::vector<workflow::EvaluationError>& errors) {
  const bool syntax = errors.size() == 1 && errors[0].path == "$";
  ctx.observer.Progress(
      {ProgressEvent::kRepairing, 0,
       syntax ? "repairing evaluator JSON"
              : "evaluator schema retry (" + std::to_string(errors.size()) + " issues)"});
  Result<workflow::CanonicalDocument> input = workflow::BuildRepairInput(blind, invalid, errors);
  if (!input.ok()) {
    RecordFailure(ctx, input.status(), Stage::kEvaluation, std::nullopt, 2);
    return {std::nullopt, errors};
  }
  const StageChild repair = Capped(ctx, EvaluatorChild(ctx, 2, RepairPrompt(ctx), input->bytes));
  // A cap stop here is recorded at attempt 2: the repair it did not start.
  if (!WithinCostCap(ctx, repair, 2)) return {std::nullopt, errors};
  StageResult repaired = RunStageChild(ctx.run, repair, ctx.cancel);
  NoteCalibration(ctx, repaired, Role::kRepair);
  if (!repaired.status.ok()) {
    RecordFailure(ctx, repaired.status, Stage::kEvaluation, std::nullopt, 2);
    return {std::nullopt, errors};
  }
  return workflow::ValidateEvaluation(repaired.answer, scope);
}

Result<nlohmann::json> Evaluate(RunContext& ctx, const workflow::CanonicalDocument& blind,
                                const workflow::EvaluationScope& scope) {
  ctx.carry.files.push_back({"blind-candidates.json", blind.bytes});
  Result<std::string> first = RunFirstAttempt(
      ctx, EvaluatorChild(ctx, 1, EvaluatorPrompt(ctx), blind.bytes), store::RunState::kEvaluating,
      {ProgressEvent::kEvaluating, 0, "evaluating candidates"});
  if (!first.ok()) return first.status();
  workflow::EvaluationCheck check = workflow::ValidateEvaluation(*first, scope);
  if (!check.ok()) check = Repair(ctx, blind, scope, *first, check.errors);
  if (!check.ok()) {
    if (ctx.outcome.run_error) return ctx.outcome.error;  // the repair child itself failed
    return Fail(ctx,
                Status::Error(kEvaluationInvalid,
                              "evaluation schema repair failed: " +
                                  workflow::EvaluationInvalid(check.errors, scope).message()),
                Stage::kEvaluation, std::nullopt, 2);
  }
  Result<std::string> bytes = store::CanonicalBytes(*check.evaluation, "evaluation.json");
  if (!bytes.ok()) return Fail(ctx, bytes.status(), Stage::kEvaluation, std::nullopt, std::nullopt);
  // Made durable with the merger's first row (RunStageChild's carry), or by RecordFailure.
  ctx.carry.files.push_back({"evaluation.json", *std::move(bytes)});
  ctx.evaluation_kept = true;
  ctx.carry.transitions.push_back(store::RunState::kEvaluationComplete);
  return *check.evaluation;
}

}  // namespace

Result<workflow::AnonymousMap> AnonymizeOrReuse(RunContext& ctx,
                                                const store::ReusedEvaluation* reused,
                                                std::optional<int> left_out) {
  if (reused != nullptr) return ReuseAnonymousMap(ctx, *reused);
  Result<workflow::AnonymousMap> map = workflow::DrawAnonymousMap(*ctx.run.seams.random);
  if (!map.ok()) return map.status();
  if (left_out) map = workflow::MoveDroppedToC(*map, *left_out);
  if (Status s = ctx.run.store->SetAnonymousMap(map->ToJson()); !s.ok()) return s;
  return map;
}

Result<nlohmann::json> EvaluateOrReuse(RunContext& ctx, const store::ReusedEvaluation* reused,
                                       const workflow::CanonicalDocument& blind,
                                       const workflow::EvaluationScope& scope) {
  if (reused != nullptr) return ReuseEvaluation(ctx, *reused, blind, scope);
  return Evaluate(ctx, blind, scope);
}

Result<std::string> Merge(RunContext& ctx, const workflow::CanonicalDocument& input) {
  return RunFirstAttempt(ctx, MergerChild(ctx, MergerPrompt(ctx), input.bytes),
                         store::RunState::kMerging,
                         {ProgressEvent::kMerging, 0, "merging final answer"});
}

}  // namespace pi_fusion::run
