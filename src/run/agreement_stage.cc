#include "run/agreement_stage.h"

#include <optional>
#include <utility>

#include "run/adaptive_text.h"
#include "run/child_stage.h"
#include "run/resume_inputs.h"
#include "run/run_cost_cap.h"
#include "run/run_failure.h"
#include "run/stage_children.h"
#include "store/manifest.h"
#include "workflow/agreement_check.h"
#include "workflow/stage_inputs.h"

namespace pi_fusion::run {
namespace {

// The check's own cost: its attempts' recorded usage (the repair's included).
double CheckCostUsd(const RunContext& ctx) {
  double total = 0;
  for (const store::AttemptRecord& a : ctx.run.store->Snapshot().attempts) {
    if (a.key.stage == Stage::kAgreement && a.usage) total += a.usage->cost.total;
  }
  return total;
}

// One attempt of the check (1) or its repair (2), within the cost cap: its answer, or its
// failure recorded at stage agreement and that attempt.
Result<std::string> RunCheckChild(RunContext& ctx, int attempt, std::string system_prompt,
                                  std::string input) {
  const StageChild child =
      Capped(ctx, AgreementChild(ctx, attempt, std::move(system_prompt), std::move(input)));
  if (!WithinCostCap(ctx, child, attempt)) return ctx.outcome.error;
  StageResult result = RunStageChild(ctx.run, child, ctx.cancel);
  NoteCalibration(ctx, result, child.role);
  if (!result.status.ok())
    return Fail(ctx, result.status, Stage::kAgreement, std::nullopt, attempt);
  return std::move(result.answer);
}

// The checker's verdict, after at most one repair.
Result<workflow::AgreementVerdict> RunCheck(RunContext& ctx, const std::string& first,
                                            const std::string& second) {
  Result<workflow::CanonicalDocument> input =
      workflow::BuildAgreementInput(ctx.run.canonical_input, first, second);
  if (!input.ok()) return Fail(ctx, input.status(), Stage::kAgreement, std::nullopt, 1);
  ctx.observer.Progress({ProgressEvent::kCheckingAgreement, 0, "checking agreement"});
  Result<std::string> answer =
      RunCheckChild(ctx, 1, workflow::AgreementSystemPrompt(), input->bytes);
  if (!answer.ok()) return answer.status();
  workflow::AgreementCheck check = workflow::ValidateAgreement(*answer);
  if (check.ok()) return *check.verdict;
  ctx.observer.Progress({ProgressEvent::kCheckingAgreement, 0,
                         "agreement check retry (" + std::to_string(check.errors.size()) +
                             (check.errors.size() == 1 ? " issue)" : " issues)")});
  Result<workflow::CanonicalDocument> repair_input =
      workflow::BuildRepairInput(*input, *answer, check.errors);
  if (!repair_input.ok())
    return Fail(ctx, repair_input.status(), Stage::kAgreement, std::nullopt, 2);
  Result<std::string> repaired =
      RunCheckChild(ctx, 2, workflow::AgreementRepairSystemPrompt(), repair_input->bytes);
  if (!repaired.ok()) return repaired.status();
  check = workflow::ValidateAgreement(*repaired);
  if (check.ok()) return *check.verdict;
  return Fail(ctx, workflow::AgreementInvalid(check.errors), Stage::kAgreement, std::nullopt, 2);
}

// The decision of the run this one resumes, when its candidates 1 and 2 are both reused from it
// (the check's inputs are then the same bytes) and it was made by a check.
std::optional<store::AdaptiveRecord> ReusedDecision(const RunContext& ctx) {
  const PreparedRun& run = ctx.run;
  if (!run.resume || !run.resume->manifest.adaptive) return std::nullopt;
  if (ReusedCandidateOf(run, 1) == nullptr || ReusedCandidateOf(run, 2) == nullptr) {
    return std::nullopt;
  }
  store::AdaptiveRecord record = *run.resume->manifest.adaptive;
  if (record.decided_by != "check") return std::nullopt;
  record.reused = true;
  record.check_cost_usd = std::nullopt;  // no child ran for it in this run
  return record;
}

}  // namespace

Result<bool> DecideAgreement(RunContext& ctx, const std::string& first, const std::string& second) {
  store::AdaptiveRecord record;
  if (workflow::AnswersIdentical(first, second)) {
    record.agree = true;
    record.decided_by = "identical";
  } else if (std::optional<store::AdaptiveRecord> reused = ReusedDecision(ctx)) {
    record = *std::move(reused);
  } else {
    Result<workflow::AgreementVerdict> verdict = RunCheck(ctx, first, second);
    if (!verdict.ok()) return verdict.status();
    record.agree = verdict->agree;
    record.decided_by = "check";
    record.differences = verdict->differences;
    record.check_cost_usd = CheckCostUsd(ctx);
  }
  if (Status s = ctx.run.store->RecordAdaptive(record); !s.ok()) {
    return Fail(ctx, s, Stage::kAgreement, std::nullopt, std::nullopt);
  }
  ctx.adaptive = store::AdaptiveToJson(record);
  ctx.observer.Progress({ProgressEvent::kNote, 0, AdaptiveSentence(ctx.adaptive)});
  return record.agree;
}

}  // namespace pi_fusion::run
