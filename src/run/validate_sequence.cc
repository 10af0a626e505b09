#include "run/validate_sequence.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/limits.h"
#include "run/later_stages.h"
#include "run/resume_inputs.h"
#include "run/reviewer_phase.h"
#include "run/run_commit.h"
#include "run/run_cost_cap.h"
#include "run/run_failure.h"
#include "run/run_reuse.h"
#include "run/stage_children.h"
#include "workflow/stage_inputs.h"
#include "workflow/validation_findings.h"
#include "workflow/validation_render.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {
namespace {

// The reviewers, each noted for the result details as it ends and announced once its report is
// usable; the warm stages stop watching once all ended.
ReviewerPhase RunReviewerPhase(RunContext& ctx) {
  const Clock::TimePoint started = ctx.run.seams.clock->Now();  // the reviewers start together
  ReviewerPhase phase = RunReviewers(
      ctx.run, [&ctx](int slot) { return CandidateChild(ctx, slot); },
      [&ctx](const StageChild& child, const process::CancelToken& cancel) {
        return RunOrReuse(ctx, child, cancel);
      },
      ctx.cancel, ctx.observer,
      [&ctx, started](int slot, const StageResult& result, const Status& end) {
        NoteCalibration(ctx, result, Role::kCandidate);
        ctx.notes.AddChildFindings(slot, result, *ctx.run.store);
        if (end.ok()) ReportLanded(ctx, slot, result, started);
      });
  ctx.warm.CandidatesEnded();
  return phase;
}

// The reviewers dropped under the minority rule, as the report's limitations and in the run's
// own record too, not only in the report's prose.
Status RecordDropped(RunContext& ctx, const std::vector<workflow::DroppedReviewer>& dropped,
                     std::vector<std::string>* host_limitations) {
  ctx.dropped_reviewers.emplace();
  for (const workflow::DroppedReviewer& d : dropped) {
    host_limitations->push_back(
        workflow::DroppedReviewerLimitation(d.slot, d.why.code(), d.why.message()));
    Status s = ctx.run.store->RecordDroppedReviewer(d.slot, d.why.code(), d.why.message());
    if (!s.ok()) return s;
    ctx.dropped_reviewers->push_back({d.slot, d.why.code(), d.why.message()});
  }
  return Status::Ok();
}

// The usable reports under their letters; one recovered from its fence is a limitation too.
std::vector<workflow::AnonymousReport> LetteredReports(const std::vector<UsableReviewer>& usable,
                                                       const workflow::AnonymousMap& map,
                                                       std::vector<std::string>* host_limitations) {
  std::vector<workflow::AnonymousReport> reports;
  for (const UsableReviewer& u : usable) {
    const std::string& id = map.candidate_for_slot[u.slot - 1];
    reports.push_back({id, u.report});
    if (u.fence_recovered) {
      host_limitations->push_back(workflow::RecoveredFenceLimitation(id, u.slot, 1));
    }
  }
  return reports;
}

// The host-rendered report holds to the final report's cap like a merger's answer; a cut report
// keeps its whole text in a run artifact the manifest binds.
RunOutcome CommitReport(RunContext& ctx, const workflow::ValidationRenderInput& render,
                        const workflow::AnonymousMap& map) {
  const workflow::CappedValidationReport report =
      workflow::CapValidationReport(render, kMergerOutputMaxBytes);
  if (report.cut) {
    auto ref = ctx.run.store->WriteArtifact(std::string(workflow::kFullValidationReportArtifact),
                                            report.full);
    if (!ref.ok()) return FailOutcome(ctx, ref.status(), Stage::kMerge);
  }
  return Commit(ctx, report.text, map);
}

}  // namespace

RunOutcome ExecuteValidate(RunContext& ctx) {
  if (!StartCandidateStage(ctx)) return ctx.outcome;
  ReviewerPhase phase = RunReviewerPhase(ctx);
  const int usable = static_cast<int>(phase.usable.size());
  if (phase.failure) {
    RecordFailure(ctx, WithCapNextStep(ctx, phase.failure->status, usable), Stage::kCandidate,
                  phase.failure->slot, 1);
    return ctx.outcome;
  }
  ctx.carry.transitions.push_back(store::RunState::kCandidatesComplete);
  ctx.verified_candidates = usable;
  std::optional<int> dropped;
  if (!phase.dropped.empty()) dropped = phase.dropped.front().slot;
  const store::ReusedEvaluation* reused = dropped ? nullptr : ReusedEvaluationOf(ctx.run);
  Result<workflow::AnonymousMap> map = AnonymizeOrReuse(ctx, reused, dropped);
  if (!map.ok()) return FailOutcome(ctx, map.status(), Stage::kEvaluation);
  workflow::ValidationRenderInput render;
  if (Status s = RecordDropped(ctx, phase.dropped, &render.host_limitations); !s.ok()) {
    return FailOutcome(ctx, s, Stage::kCandidate);
  }
  std::vector<workflow::AnonymousReport> reports =
      LetteredReports(phase.usable, *map, &render.host_limitations);
  Result<workflow::CanonicalDocument> blind =
      workflow::BuildValidationBlindInput(ctx.run.canonical_input, reports);
  if (!blind.ok()) return FailOutcome(ctx, blind.status(), Stage::kEvaluation);
  workflow::EvaluationScope scope = workflow::ValidationEvaluationScope(reports);
  scope.checked_claims = EvaluatorTools(ctx);
  Result<nlohmann::json> evaluation = EvaluateOrReuse(ctx, reused, *blind, scope);
  if (!evaluation.ok()) return ctx.outcome;
  Result<workflow::CanonicalDocument> input =
      workflow::BuildValidationMergeInput(ctx.run.canonical_input, reports, *evaluation);
  if (!input.ok()) return FailOutcome(ctx, input.status(), Stage::kMerge);
  Result<std::string> summary = Merge(ctx, *input);
  if (!summary.ok()) return ctx.outcome;
  render.summary = *summary;
  render.sources = workflow::AssignFindingIds(reports);
  render.reports = std::move(reports);
  render.accounting = workflow::AccountingFromJson(evaluation->at("validation_accounting"));
  ctx.evaluation = *evaluation;
  // A finding's location is where it says the problem is: its citation is checked.
  for (const workflow::SourceFinding& source : render.sources) {
    ctx.cited_texts.push_back({"finding " + source.source_id, source.finding.location});
  }
  return CommitReport(ctx, render, *map);
}

}  // namespace pi_fusion::run
