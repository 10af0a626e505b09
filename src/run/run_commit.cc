#include "run/run_commit.h"

#include <cstdio>
#include <ctime>
#include <optional>

#include "budget/cost_text.h"
#include "run/citation_check.h"
#include "run/judgment_text.h"
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

// The checked_claims of a v2 evaluation (policy.evaluator_tools); null for a v1 evaluation.
nlohmann::json CheckedClaimsOf(const nlohmann::json& evaluation) {
  if (!evaluation.is_object()) return nullptr;
  const nlohmann::json claims = evaluation.value("checked_claims", nlohmann::json());
  return claims.is_array() ? claims : nlohmann::json(nullptr);
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
  details.adaptive = ctx.adaptive;
  if (const nlohmann::json claims = CheckedClaimsOf(ctx.evaluation); claims.is_array()) {
    details.checked_claims = claims;
  }
  if (!run.child_wrapper.empty()) {
    details.child_wrapper = run.child_wrapper;
    details.warnings.push_back(
        {"child_wrapper", std::nullopt, workflow::ChildWrapperNotice(run.child_wrapper)});
  }
  return details;
}

// created_at ("2025-03-04T05:06:07.089Z", store/wall_clock.h) in ms since the epoch.
std::optional<int64_t> UnixMs(const std::string& timestamp) {
  std::tm tm = {};
  int ms = 0;
  if (std::sscanf(timestamp.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return int64_t{timegm(&tm)} * 1000 + ms;
}

// The citation check (docs/citations.md): every candidate's answer, validate's findings'
// locations and the answer, against the project as it is now. Reason runs read no project.
nlohmann::json CitationsOf(const RunContext& ctx, const std::string& answer,
                           const store::Manifest& manifest) {
  if (ctx.Spec().workflow == Workflow::kReason) return nullptr;
  const HostSnapshot& host = ctx.run.request.host;
  CitationCheckInput input;
  input.cwd = host.cwd;
  input.agent_dir = host.agent_dir;
  input.session_dir = host.session_dir;
  input.environment = host.environment;
  for (const std::string& entry : host.environment) {
    if (entry.rfind("HOME=", 0) == 0) input.home = entry.substr(5);
  }
  input.started_unix_ms = UnixMs(manifest.created_at);
  input.texts = ctx.cited_texts;
  // A v2 evaluation's checked claims: each claim's evidence is citations like any other.
  const nlohmann::json claims = CheckedClaimsOf(ctx.evaluation);
  for (size_t i = 0; i < claims.size(); ++i) {
    std::string evidence;
    for (const nlohmann::json& ref : claims[i].value("evidence", nlohmann::json::array())) {
      if (ref.is_string()) evidence += ref.get<std::string>() + "\n";
    }
    if (!evidence.empty())
      input.texts.push_back({"checked claim " + std::to_string(i + 1), evidence});
  }
  input.texts.push_back({"answer", answer});
  return CheckCitations(input);
}

// The routes of the candidates whose answers the run used.
std::vector<std::string> AnsweringRoutes(const RunContext& ctx) {
  std::vector<std::string> routes;
  // A degraded run's missing candidate, or the third an adaptive run did not ask.
  const int left_out = ctx.degraded.is_object() ? ctx.degraded.value("slot", 0)
                       : ctx.adaptive.is_object() && ctx.adaptive.value("agree", false) ? 3
                                                                                        : 0;
  for (int slot = 1; slot <= 3; ++slot) {
    if (slot == left_out) continue;
    routes.push_back(ctx.run.models.routes[slot - 1].model.QualifiedId());
  }
  return routes;
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
  const store::Manifest snapshot = run.store->Snapshot();
  workflow::ResultDetailsInput details = DetailsOf(ctx, snapshot, map);
  details.citations = CitationsOf(ctx, answer, snapshot);
  details.agreement = AgreementRecord(ctx.evaluation, AnsweringRoutes(ctx));
  details.order_check = ctx.order_check;
  if (Status s = run.store->RecordJudgment(details.citations, details.agreement, ctx.order_check);
      !s.ok()) {
    return FailOutcome(ctx, s, Stage::kMerge);
  }
  Result<nlohmann::json> built = workflow::BuildResultDetails(details);
  if (!built.ok()) return FailOutcome(ctx, built.status(), Stage::kMerge);
  Result<store::CommittedRefs> committed = run.store->CommitResult(answer, *built);
  if (!committed.ok()) return FailOutcome(ctx, committed.status(), Stage::kMerge);
  // Print and json mode show progress on stderr: the check's line is said there too.
  if (std::string line = CitationsLine(details.citations); !line.empty()) {
    ctx.observer.Progress({ProgressEvent::kNote, 0, std::move(line)});
  }
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
  outcome.adaptive = ctx.adaptive;
  return outcome;
}

}  // namespace pi_fusion::run
