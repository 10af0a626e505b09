#include "run/run_context.h"

#include <chrono>
#include <utility>

#include "budget/calibration.h"
#include "run/resume_inputs.h"
#include "run/tool_refusals.h"
#include "store/manifest.h"
#include "store/resumability.h"
#include "workflow/child_wrapper.h"

namespace pi_fusion::run {

void RunNotes::AddWarning(workflow::ResultWarning warning) {
  std::lock_guard lock(mu_);
  warnings_.push_back(std::move(warning));
}

void RunNotes::AddChildFindings(int slot, const StageResult& result, store::RunStore& store) {
  std::lock_guard lock(mu_);
  AddRefusals(slot, result.tool_refusals, &refusals_);
  if (result.walk_protection) {
    walk_protection_ = WeakerWalkProtection(walk_protection_, result.walk_protection);
    (void)store.RecordWalkProtection(*walk_protection_);
  }
  source_fetches_.insert(source_fetches_.end(), result.source_fetches.begin(),
                         result.source_fetches.end());
}

void RunNotes::FillDetails(bool declares_sources, workflow::ResultDetailsInput* details) const {
  std::lock_guard lock(mu_);
  details->warnings.insert(details->warnings.end(), warnings_.begin(), warnings_.end());
  details->tool_refusals = refusals_;
  details->source_failures = FailedSources(source_fetches_);
  details->no_source_fetched = declares_sources && NoSourceFetched(source_fetches_);
}

void ReportRunStart(RunContext& ctx) {
  if (!ctx.run.child_wrapper.empty()) {
    ctx.observer.Progress(
        {ProgressEvent::kNote, 0, workflow::ChildWrapperNotice(ctx.run.child_wrapper)});
  }
  // The plan's warnings only: worst-case reservation pressure is a note (budget/planner.h).
  const size_t high = ctx.run.plan.warnings.size();
  if (high > 0) {
    ctx.observer.Progress({ProgressEvent::kNote, 0,
                           "budget warning (" + std::to_string(high) + " stages at or above 80%)"});
  }
}

void NoteCalibration(RunContext& ctx, const StageResult& result, Role role) {
  if (!result.under_forecast_tokens) return;
  const std::string line = budget::CalibrationWarningText(*result.under_forecast_tokens);
  ctx.observer.Progress({ProgressEvent::kNote, 0, line});
  ctx.notes.AddWarning({"calibration", std::string(PlanStageName(role)), line});
}

void ReportLanded(RunContext& ctx, int slot, const StageResult& result, Clock::TimePoint started) {
  const PreparedRun& run = ctx.run;
  LandedCandidate landed;
  landed.slot = slot;
  landed.model = run.models.routes[slot - 1].model.QualifiedId();
  landed.elapsed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(run.seams.clock->Now() - started)
          .count();
  landed.answer = result.answer;
  landed.artifact = store::CandidateResponseName(slot);
  landed.tool_calls = result.tool_calls;
  landed.pooled = result.pooled;
  if (const store::ReusedAttempt* reused = ReusedCandidateOf(run, slot)) {
    landed.reused_from = reused->record.reused_from.value_or(run.resume->manifest.run_id);
  }
  ctx.observer.CandidateLanded(landed);
}

}  // namespace pi_fusion::run
