#include "run/order_stage.h"

#include <string>
#include <utility>

#include "core/error_codes.h"
#include "run/attempt_recorder.h"
#include "run/child_stage.h"
#include "run/resume_inputs.h"
#include "run/run_cost_cap.h"
#include "run/run_failure.h"
#include "run/stage_children.h"
#include "store/attempt_files.h"
#include "workflow/stage_prompts.h"

namespace pi_fusion::run {
namespace {

Status OrderCheckInvalid(const std::vector<workflow::EvaluationError>& errors) {
  std::string message = "order-check output does not match " +
                        std::string(workflow::kOrderCheckSchema) +
                        " after its one repair: " + errors.front().Record();
  if (errors.size() > 1) message += " (and " + std::to_string(errors.size() - 1) + " more)";
  return Status::Error(std::string(kEvaluationInvalid), message);
}

// The verified order-check attempt of the run this one resumes (with its evaluation) that was
// given exactly `child`'s prompt at the same attempt; nullptr when there is none.
const store::ReusedAttempt* ReusedOrderCheck(const RunContext& ctx, const StageChild& child) {
  const store::ReusedEvaluation* evaluation = ReusedEvaluationOf(ctx.run);
  if (evaluation == nullptr) return nullptr;
  const std::string prompt_name = store::AttemptFileName(child.key, store::AttemptFile::kPrompt);
  const std::string prompt = RecordedPrompt(child);
  for (const store::ReusedAttempt& reused : evaluation->order_checks) {
    if (reused.record.key != child.key) continue;
    for (const store::ReusedFile& file : reused.files) {
      if (file.name == prompt_name && file.bytes == prompt) return &reused;
    }
  }
  return nullptr;
}

// One child of the order check at `attempt`: its verified answer, or its failure recorded.
Result<std::string> RunOrderChild(RunContext& ctx, int attempt, std::string system_prompt,
                                  std::string input) {
  const StageChild child =
      Capped(ctx, OrderCheckChild(ctx, attempt, std::move(system_prompt), std::move(input)));
  if (const store::ReusedAttempt* reused = ReusedOrderCheck(ctx, child)) {
    StageResult result = ReuseStageChild(ctx.run, child, *reused);
    if (!result.status.ok()) {
      return Fail(ctx, result.status, Stage::kOrderCheck, std::nullopt, attempt);
    }
    return result.answer;
  }
  if (!WithinCostCap(ctx, child, attempt)) return ctx.outcome.error;
  // The evaluation's documents and its evaluation_complete go with the first row (ctx.carry).
  StageResult result = RunStageChild(ctx.run, child, ctx.cancel, nullptr, &ctx.carry);
  NoteCalibration(ctx, result, child.role);
  if (!result.status.ok())
    return Fail(ctx, result.status, Stage::kOrderCheck, std::nullopt, attempt);
  return result.answer;
}

// One pass: the call under `relabelling`, repaired once when its answer breaks the contract.
Result<workflow::OrderCheckVerdicts> RunPass(RunContext& ctx, int* attempt,
                                             const workflow::CanonicalDocument& input,
                                             const workflow::Relabelling& relabelling) {
  Result<std::string> first =
      RunOrderChild(ctx, *attempt, workflow::OrderCheckSystemPrompt(), input.bytes);
  if (!first.ok()) return first.status();
  workflow::OrderCheckCheck check = workflow::ValidateOrderCheck(*first, input.value, relabelling);
  if (!check.ok()) {
    ++*attempt;
    const bool syntax = check.errors.size() == 1 && check.errors[0].path == "$";
    ctx.observer.Progress(
        {ProgressEvent::kRepairing, 0,
         syntax ? "repairing order-check JSON"
                : "order-check schema retry (" + std::to_string(check.errors.size()) + " issues)"});
    Result<workflow::CanonicalDocument> repair_input =
        workflow::BuildOrderCheckRepairInput(input, *first, check.errors);
    if (!repair_input.ok()) {
      return Fail(ctx, repair_input.status(), Stage::kOrderCheck, std::nullopt, *attempt);
    }
    Result<std::string> repaired =
        RunOrderChild(ctx, *attempt, workflow::OrderCheckRepairSystemPrompt(), repair_input->bytes);
    if (!repaired.ok()) return repaired.status();
    check = workflow::ValidateOrderCheck(*repaired, input.value, relabelling);
    if (!check.ok()) {
      return Fail(ctx, OrderCheckInvalid(check.errors), Stage::kOrderCheck, std::nullopt, *attempt);
    }
  }
  ++*attempt;
  return *std::move(check.verdicts);
}

}  // namespace

Result<std::optional<std::vector<workflow::ConflictOrder>>> CheckOrder(
    RunContext& ctx, const std::vector<workflow::AnonymousCandidate>& candidates,
    const nlohmann::json& evaluation, const workflow::AnonymousMap& map) {
  using Judged = std::optional<std::vector<workflow::ConflictOrder>>;
  if (ctx.run.policy.order_check != config::OrderCheck::kOnConflict) return Judged();
  const nlohmann::json& conflicts = evaluation.at("conflicts");
  if (conflicts.empty()) return Judged();
  ctx.observer.Progress({ProgressEvent::kEvaluating, 0, "checking order sensitivity"});
  std::vector<workflow::OrderCheckVerdicts> passes;
  int attempt = 1;
  for (const workflow::Relabelling& relabelling :
       workflow::OrderCheckRelabellings(candidates.size())) {
    Result<workflow::CanonicalDocument> input =
        workflow::BuildOrderCheckInput(ctx.run.canonical_input, candidates, conflicts, relabelling);
    if (!input.ok()) {
      return Fail(ctx, input.status(), Stage::kOrderCheck, std::nullopt, std::nullopt);
    }
    Result<workflow::OrderCheckVerdicts> verdicts = RunPass(ctx, &attempt, *input, relabelling);
    if (!verdicts.ok()) return verdicts.status();
    passes.push_back(*std::move(verdicts));
  }
  std::vector<workflow::ConflictOrder> judged = workflow::JudgeOrder(conflicts, passes);
  ctx.order_check = workflow::OrderCheckRecord(judged, map);
  return Judged(std::move(judged));
}

}  // namespace pi_fusion::run
