#include "run/run_reuse.h"

#include <algorithm>
#include <string>

#include "run/resume_inputs.h"
#include "run/run_failure.h"
#include "run/thread_entry.h"
#include "store/run_id.h"

namespace pi_fusion::run {

StageResult RunOrReuse(RunContext& ctx, const StageChild& child,
                       const process::CancelToken& cancel) {
  return CatchAtThreadEntry(
      [&] {
        if (const store::ReusedAttempt* reused =
                ReusedCandidateOf(ctx.run, child.key.slot.value_or(0))) {
          return ReuseStageChild(ctx.run, child, *reused);
        }
        return RunStageChild(ctx.run, child, cancel);
      },
      [](const std::string& what) {
        return StageResult{InternalError(what), ""};
      });
}

Result<workflow::AnonymousMap> ReuseAnonymousMap(RunContext& ctx,
                                                 const store::ReusedEvaluation& reused) {
  Result<workflow::AnonymousMap> map = workflow::AnonymousMapFromJson(reused.anonymous_map);
  if (!map.ok()) return map.status();
  if (Status s = ctx.run.store->SetAnonymousMap(map->ToJson()); !s.ok()) return s;
  return map;
}

Result<nlohmann::json> ReuseEvaluation(RunContext& ctx, const store::ReusedEvaluation& reused,
                                       const workflow::CanonicalDocument& blind,
                                       const workflow::EvaluationScope& scope) {
  const auto blind_doc = std::find_if(
      reused.documents.begin(), reused.documents.end(),
      [](const store::ReusedFile& f) { return f.name == store::kBlindCandidatesFile; });
  if (blind_doc == reused.documents.end() || blind_doc->bytes != blind.bytes) {
    return Fail(ctx, InternalError("the reused evaluation judged another blind input"),
                Stage::kEvaluation, std::nullopt, std::nullopt);
  }
  workflow::EvaluationCheck check = workflow::ValidateEvaluation(reused.evaluation, scope);
  if (!check.ok()) {
    return Fail(ctx, workflow::EvaluationInvalid(check.errors, scope), Stage::kEvaluation,
                std::nullopt, std::nullopt);
  }
  const std::string& old_run = ctx.run.resume->manifest.run_id;
  ctx.carry.transitions.push_back(store::RunState::kEvaluating);
  ctx.observer.Progress({ProgressEvent::kEvaluating, 0,
                         "evaluation reused from " + std::string(store::ShortRunId(old_run))});
  for (const store::ReusedAttempt& attempt : reused.attempts) {
    Status s = ctx.run.store->Apply(store::ReuseBatch(attempt, old_run));
    if (!s.ok()) return Fail(ctx, s, Stage::kEvaluation, std::nullopt, attempt.record.key.attempt);
  }
  for (const store::ReusedFile& document : reused.documents) {
    ctx.carry.files.push_back({document.name, document.bytes});
  }
  ctx.evaluation_kept = true;
  ctx.carry.transitions.push_back(store::RunState::kEvaluationComplete);
  return *check.evaluation;
}

}  // namespace pi_fusion::run
