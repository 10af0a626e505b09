#include "run/run_commit.h"

#include <optional>

#include "budget/cost_text.h"
#include "run/run_failure.h"
#include "store/failure_summary.h"
#include "store/role_usage.h"
#include "workflow/child_wrapper.h"
#include "workflow/result_details.h"

namespace pi_fusion::run {
namespace {

workflow::ModelsUsed ModelsOf(const PreparedRun& run) {
  workflow::ModelsUsed models;
  for (size_t i = 0; i < 3; ++i) {
    models.candidates[i] = run.models.routes[i].model.QualifiedId();
  }
  models.evaluator = run.models.route(Slot::kEvaluator).model.QualifiedId();
  models.merger = run.models.route(Slot::kMerger).model.QualifiedId();
  models.thinking_level = run.models.thinking_level;
  return models;
}

// What the result details say of the manifest: its usage, requests, attempts and artifacts.
void AddManifest(const store::Manifest& manifest, workflow::ResultDetailsInput* details) {
  details->run_id = manifest.run_id;
  details->workflow = manifest.workflow;
  details->usage = store::UsageToJson(manifest.usage);
  details->usage_by_role = store::UsageByRoleJson(store::UsageByRole(manifest));
  details->model_requests = store::ModelRequests(manifest);
  for (const store::AttemptRecord& attempt : manifest.attempts) {
    if (attempt.key.stage == Stage::kCandidate) ++details->attempts.candidate;
    if (attempt.key.stage == Stage::kEvaluation && attempt.key.attempt == 1)
      ++details->attempts.evaluation;
    if (attempt.key.stage == Stage::kEvaluation && attempt.key.attempt == 2)
      ++details->attempts.evaluation_repair;
    if (attempt.key.stage == Stage::kMerge) ++details->attempts.merge;
  }
  for (const auto& [name, ref] : manifest.artifacts) {
    details->artifacts.push_back({name, ref.path, ref.byte_length, ref.sha256});
  }
  details->resumed_from = manifest.resumed_from;
}

workflow::ResultDetailsInput DetailsOf(const RunContext& ctx, const store::Manifest& manifest,
                                       const workflow::AnonymousMap& map) {
  const PreparedRun& run = ctx.run;
  workflow::ResultDetailsInput details;
  AddManifest(manifest, &details);
  details.models = ModelsOf(run);
  details.anonymous_map = map;
  for (const budget::BudgetWarning& w : run.plan.warnings) {
    details.warnings.push_back(
        {"budget", std::string(PlanStageName(run.plan.stages[w.stage_index].stage)), w.message});
  }
  ctx.notes.FillDetails(ctx.Spec().declares_sources, &details);
  details.estimate = budget::EstimateSummaryJson(run.cost_forecast);
  details.dropped_reviewers = ctx.dropped_reviewers;
  details.degraded = ctx.degraded;
  if (!run.child_wrapper.empty()) {
    details.child_wrapper = run.child_wrapper;
    details.warnings.push_back(
        {"child_wrapper", std::nullopt, workflow::ChildWrapperNotice(run.child_wrapper)});
  }
  return details;
}

}  // namespace

RunOutcome Commit(RunContext& ctx, const std::string& answer, const workflow::AnonymousMap& map) {
  PreparedRun& run = ctx.run;
  ctx.warm.EndUnused();  // none is left after the merge; this keeps that true by construction
  // Every child reaped and its exit recorded before the result is committed; a child that
  // failed after its answer fails the run (child_exits.h).
  if (std::optional<LateFailure> late = run.exits->Settle(*run.store, *run.seams.fs)) {
    RecordFailure(ctx, late->status, late->key.stage, late->key.slot, late->key.attempt);
    return ctx.outcome;
  }
  Result<nlohmann::json> built =
      workflow::BuildResultDetails(DetailsOf(ctx, run.store->Snapshot(), map));
  if (!built.ok()) return FailOutcome(ctx, built.status(), Stage::kMerge);
  Result<store::CommittedRefs> committed = run.store->CommitResult(answer, *built);
  if (!committed.ok()) return FailOutcome(ctx, committed.status(), Stage::kMerge);
  ctx.observer.Progress({ProgressEvent::kCompleted, 0, "completed"});
  RunOutcome& outcome = ctx.outcome;
  outcome.end = RunEnd::kCompleted;
  outcome.error = Status::Ok();
  outcome.artifact_dir = run.store->run_dir();
  const store::Manifest completed = run.store->Snapshot();
  outcome.usage = store::UsageToJson(completed.usage);
  outcome.model_requests = store::RequestsJson(completed);
  if (ctx.Spec().declares_sources) {
    outcome.source_report = {{"source_failures", built->value("source_failures", nlohmann::json())},
                             {"no_source_fetched", built->value("no_source_fetched", false)}};
  }
  outcome.degraded = ctx.degraded;
  return outcome;
}

}  // namespace pi_fusion::run
