#include "run/run_cost_cap.h"

#include <algorithm>

#include "budget/cost_cap.h"
#include "core/error_codes.h"
#include "run/resume_inputs.h"
#include "run/run_failure.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {
namespace {

// The spend later stages' allowances start from: the manifest's usage total, plus the unrecorded
// rest of the share of a candidate cut after the grace window (HoldCutShare).
double SpentForCap(const RunContext& ctx) {
  return ctx.run.store->Snapshot().usage.cost.total + ctx.cut_share_usd;
}

// The policy check a child on the evaluator's route runs, if it runs one (cost_cap.h).
std::optional<Stage> CheckOf(const StageChild& child) {
  const Stage stage = child.key.stage;
  if (stage == Stage::kAgreement || stage == Stage::kOrderCheck) return stage;
  return std::nullopt;
}

}  // namespace

void SplitCostCap(RunContext& ctx) {
  const PreparedRun& run = ctx.run;
  if (!run.policy.max_cost_usd) return;
  const int running = workflow::kCandidateCount - static_cast<int>(ReusedCandidateCount(run));
  ctx.candidate_allowance = budget::CandidateAllowanceUsd(*run.policy.max_cost_usd,
                                                          run.store->Snapshot().usage.cost.total,
                                                          run.cost_forecast, std::max(running, 1));
}

StageChild Capped(const RunContext& ctx, StageChild child) {
  const PreparedRun& run = ctx.run;
  if (!run.policy.max_cost_usd) return child;
  child.cost_allowance_usd = budget::StageAllowanceUsd(
      *run.policy.max_cost_usd, SpentForCap(ctx), run.cost_forecast, child.role, CheckOf(child));
  return child;
}

bool WithinCostCap(RunContext& ctx, const StageChild& child, std::optional<int> attempt) {
  const PreparedRun& run = ctx.run;
  if (!run.policy.max_cost_usd) return true;
  const double spent = SpentForCap(ctx);
  const budget::CapStopKept kept{ctx.verified_candidates, ctx.evaluation_kept, run.store->run_dir(),
                                 run.store->run_id()};
  const auto bytes = static_cast<int64_t>(child.system_prompt.size() + child.stdin_text.size());
  Status cap = budget::CheckCostCapBeforeStage(run.policy.max_cost_usd, spent, run.cost_forecast,
                                               child.role, bytes, kept, CheckOf(child));
  if (cap.ok()) return true;
  RecordFailure(ctx, cap, child.key.stage, std::nullopt, attempt);
  return false;
}

Status WithCapNextStep(const RunContext& ctx, const Status& status, int verified) {
  if (status.code() != kCostCapExceeded) return status;
  const budget::CapStopKept kept{verified, false, ctx.run.store->run_dir(),
                                 ctx.run.store->run_id()};
  return Status::Error(status.code(), status.message() + ". " + budget::CapStopNextStep(kept));
}

void HoldCutShare(RunContext& ctx, int slot) {
  if (!ctx.candidate_allowance) return;
  double recorded = 0;
  for (const store::AttemptRecord& a : ctx.run.store->Snapshot().attempts) {
    if (a.key.stage == Stage::kCandidate && a.key.slot == slot && a.usage) {
      recorded += a.usage->cost.total;
    }
  }
  ctx.cut_share_usd += std::max(0.0, *ctx.candidate_allowance - recorded);
}

}  // namespace pi_fusion::run
