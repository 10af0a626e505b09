#include "run/orchestrator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "budget/calibration.h"
#include "budget/cost_cap.h"
#include "budget/cost_text.h"
#include "config/config_constants.h"
#include "config/models_config.h"
#include "core/error_codes.h"
#include "core/json_text.h"
#include "core/limits.h"
#include "run/cancel_cause.h"
#include "run/child_stage.h"
#include "run/degraded_text.h"
#include "run/resume_inputs.h"
#include "run/source_failures.h"
#include "run/stage_watch.h"
#include "run/tool_refusals.h"
#include "run/reviewer_phase.h"
#include "run/warm_stages.h"
#include "store/failure_summary.h"
#include "store/json_util.h"
#include "store/role_usage.h"
#include "store/run_id.h"
#include "workflow/anonymize.h"
#include "workflow/candidate_quorum.h"
#include "workflow/child_wrapper.h"
#include "workflow/evaluation_contract.h"
#include "workflow/result_details.h"
#include "workflow/stage_inputs.h"
#include "workflow/validation_findings.h"
#include "workflow/validation_render.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {
namespace {

using store::RunState;

bool IsCancellation(const Status& status) { return status.code() == kChildCancelled; }

Status InternalError(const std::string& what) {
  return Status::Error(std::string(kOrchestrationFailed), "internal error: " + what);
}

class Run {
 public:
  Run(PreparedRun& run, const process::CancelToken& cancel, RunObserver& observer)
      : run_(run), cancel_(cancel), observer_(observer), warm_(run) {}

  RunOutcome Execute() {
    ReportChildWrapper();
    ReportBudgetWarnings();
    // The stage shape picks the path; each path runs its candidates under its shape's failure
    // rule (the table pairs them: workflow_spec_test).
    if (Spec().shape == workflow::StageShape::kValidation) return ExecuteValidate();
    std::array<std::string, 3> answers;
    std::optional<workflow::MissingCandidate> missing;
    if (!RunCandidates(&answers, &missing)) return outcome_;
    verified_candidates_ = missing ? 2 : 3;
    // A resumed run that reuses all three candidates and the evaluation keeps the old letters.
    const store::ReusedEvaluation* reused = missing ? nullptr : ReusedEvaluation();
    // A degraded run's missing candidate takes C, so the evaluator and the merger see exactly A
    // and B: no stage input says that a third one existed.
    Result<workflow::AnonymousMap> map =
        reused != nullptr ? ReuseAnonymousMap(*reused)
                          : Anonymize(missing ? std::optional<int>(missing->slot) : std::nullopt);
    if (!map.ok()) return FailOutcome(map.status(), Stage::kEvaluation);
    const size_t count = missing ? 2 : workflow::kCandidateCount;
    std::vector<workflow::AnonymousCandidate> candidates;
    workflow::EvaluationScope scope;
    scope.candidate_ids.clear();
    for (size_t i = 0; i < count; ++i) {
      const std::string id(workflow::kCandidateIds[i]);
      candidates.push_back({id, answers[map->SlotOf(id) - 1]});
      scope.candidate_ids.push_back(id);
    }
    Result<workflow::CanonicalDocument> blind = workflow::BuildBlindInput(run_.canonical_input, candidates, count);
    if (!blind.ok()) return FailOutcome(blind.status(), Stage::kEvaluation);
    Result<nlohmann::json> evaluation =
        reused != nullptr ? ReuseEvaluation(*reused, *blind, scope)
                          : Evaluate(*blind, scope, EvaluatorPrompt(), RepairPrompt());
    if (!evaluation.ok()) return outcome_;
    Result<workflow::CanonicalDocument> input =
        workflow::BuildMergeInput(run_.canonical_input, candidates, *evaluation, count);
    if (!input.ok()) return FailOutcome(input.status(), Stage::kMerge);
    Result<std::string> merged = Merge(*input, MergerPrompt());
    if (!merged.ok()) return outcome_;
    return Commit(*merged, *map);
  }

  // Every path of a run ends in a durable terminal state, even an exception from a layer below.
  RunOutcome ExecuteGuarded() {
    try {
      return Execute();
    } catch (const std::exception& e) {
      return FailAfterException(ExceptionText(e));
    } catch (...) {
      return FailAfterException("unknown exception");
    }
  }

  RunOutcome FailAfterException(const std::string& what) {
    try {
      if (!store::IsTerminal(run_.store->Snapshot().state)) {
        return FailOutcome(InternalError(what), std::nullopt);
      }
    } catch (...) {
    }
    outcome_.end = RunEnd::kFailed;
    outcome_.error = InternalError(what);
    outcome_.artifact_dir = run_.store->run_dir();
    return outcome_;
  }

  // Validate: reviewers under the minority rule, findings accounted for by the evaluator, the
  // merger's summary, and the report rendered by the host (validation_*.h).
  RunOutcome ExecuteValidate() {
    if (!Advance(RunState::kCandidatesRunning)) return outcome_;
    observer_.Progress({ProgressEvent::kCandidatesRunning, 0, "candidates running"});
    ArmWarmStages();
    SplitCostCap();
    const Clock::TimePoint started = run_.seams.clock->Now();  // the reviewers start together
    ReviewerPhase phase = RunReviewers(
        run_, [this](int slot) { return CandidateChild(slot); },
        [this](const StageChild& child, const process::CancelToken& cancel) {
          return RunOrReuse(child, cancel);
        },
        cancel_, observer_,
        [this, started](int slot, const StageResult& result, const Status& end) {
          NoteCalibration(result, Role::kCandidate);
          NoteRefusals(slot, result);
          if (end.ok()) ReportLanded(slot, result, started);
        });
    warm_.CandidatesEnded();
    if (phase.failure) {
      RecordFailure(WithCapNextStep(phase.failure->status, static_cast<int>(phase.usable.size())),
                    Stage::kCandidate, phase.failure->slot, 1);
      return outcome_;
    }
    carry_.transitions.push_back(RunState::kCandidatesComplete);
    verified_candidates_ = static_cast<int>(phase.usable.size());
    std::optional<int> dropped;
    if (!phase.dropped.empty()) dropped = phase.dropped.front().slot;
    const store::ReusedEvaluation* reused = dropped ? nullptr : ReusedEvaluation();
    Result<workflow::AnonymousMap> map = reused != nullptr ? ReuseAnonymousMap(*reused) : Anonymize(dropped);
    if (!map.ok()) return FailOutcome(map.status(), Stage::kEvaluation);
    std::vector<workflow::AnonymousReport> reports;
    std::vector<std::string> host_limitations;
    dropped_reviewers_.emplace();
    for (const workflow::DroppedReviewer& d : phase.dropped) {
      host_limitations.push_back(workflow::DroppedReviewerLimitation(d.slot, d.why.code(), d.why.message()));
      // In the run's own record too, not only in the report's prose.
      Status s = run_.store->RecordDroppedReviewer(d.slot, d.why.code(), d.why.message());
      if (!s.ok()) return FailOutcome(s, Stage::kCandidate);
      dropped_reviewers_->push_back({d.slot, d.why.code(), d.why.message()});
    }
    for (const UsableReviewer& u : phase.usable) {
      const std::string& id = map->candidate_for_slot[u.slot - 1];
      reports.push_back({id, u.report});
      if (u.fence_recovered) host_limitations.push_back(workflow::RecoveredFenceLimitation(id, u.slot, 1));
    }
    Result<workflow::CanonicalDocument> blind = workflow::BuildValidationBlindInput(run_.canonical_input, reports);
    if (!blind.ok()) return FailOutcome(blind.status(), Stage::kEvaluation);
    const workflow::EvaluationScope scope = workflow::ValidationEvaluationScope(reports);
    Result<nlohmann::json> evaluation =
        reused != nullptr ? ReuseEvaluation(*reused, *blind, scope)
                          : Evaluate(*blind, scope, EvaluatorPrompt(), RepairPrompt());
    if (!evaluation.ok()) return outcome_;
    Result<workflow::CanonicalDocument> input =
        workflow::BuildValidationMergeInput(run_.canonical_input, reports, *evaluation);
    if (!input.ok()) return FailOutcome(input.status(), Stage::kMerge);
    Result<std::string> summary = Merge(*input, MergerPrompt());
    if (!summary.ok()) return outcome_;
    workflow::ValidationRenderInput render;
    render.summary = *summary;
    render.sources = workflow::AssignFindingIds(reports);
    render.reports = std::move(reports);
    render.accounting = workflow::AccountingFromJson(evaluation->at("validation_accounting"));
    render.host_limitations = std::move(host_limitations);
    // The host-rendered report holds to the final report's cap like a merger's answer; a cut
    // report keeps its whole text in a run artifact the manifest binds.
    const workflow::CappedValidationReport report = workflow::CapValidationReport(render, kMergerOutputMaxBytes);
    if (report.cut) {
      auto ref = run_.store->WriteArtifact(std::string(workflow::kFullValidationReportArtifact), report.full);
      if (!ref.ok()) return FailOutcome(ref.status(), Stage::kMerge);
    }
    return Commit(report.text, *map);
  }

  const workflow::WorkflowSpec& Spec() const { return workflow::SpecOf(run_.request.request.workflow); }

 private:
  std::string EvaluatorPrompt() const {
    return workflow::EvaluatorSystemPromptOf(Spec(), CandidateSetOf(run_));
  }
  std::string RepairPrompt() const { return workflow::RepairSystemPromptOf(Spec(), CandidateSetOf(run_)); }
  std::string MergerPrompt() const { return workflow::MergerSystemPromptOf(Spec(), CandidateSetOf(run_)); }

  // The evaluator and the merger start warm once the candidates are past their start-up; their
  // command is final now (the system prompts do not depend on the candidates' answers).
  void ArmWarmStages() {
    const int running = workflow::kCandidateCount - static_cast<int>(ReusedCandidateCount(run_));
    warm_.Arm(EvaluatorChild(1, EvaluatorPrompt(), ""), MergerChild(MergerPrompt(), ""), cancel_,
              running);
  }

  // A capped run's candidates share what the cap leaves after the later stages' minimum
  // (budget/cost_cap.h), equally; each child keeps to its share on its own.
  void SplitCostCap() {
    if (!run_.policy.max_cost_usd) return;
    const int running = workflow::kCandidateCount - static_cast<int>(ReusedCandidateCount(run_));
    candidate_allowance_ = budget::CandidateAllowanceUsd(*run_.policy.max_cost_usd,
                                                         run_.store->Snapshot().usage.cost.total,
                                                         run_.cost_forecast, std::max(running, 1));
  }

  // A child stopped by its share of the cost cap ends the run saying what is kept and how to go
  // on from it.
  Status WithCapNextStep(const Status& status, int verified) const {
    if (status.code() != kCostCapExceeded) return status;
    const budget::CapStopKept kept{verified, false, run_.store->run_dir(), run_.store->run_id()};
    return Status::Error(status.code(), status.message() + ". " + budget::CapStopNextStep(kept));
  }

  // `child` with its allowance when the run is capped: what the cap leaves after the spend so far
  // and the later stages' minimum.
  StageChild Capped(StageChild child) const {
    if (!run_.policy.max_cost_usd) return child;
    child.cost_allowance_usd = budget::StageAllowanceUsd(*run_.policy.max_cost_usd, SpentForCap(),
                                                         run_.cost_forecast, child.role);
    return child;
  }

  // The spend later stages' allowances start from: the manifest's usage total, plus the unrecorded
  // rest of the share of a candidate cut after the grace window (a request it had in flight left
  // no usage record, and may still be billed).
  double SpentForCap() const { return run_.store->Snapshot().usage.cost.total + cut_share_usd_; }

  // A capped quorum-2 run that cut `slot`: what of its share its usage records do not show.
  void HoldCutShare(int slot) {
    if (!candidate_allowance_) return;
    double recorded = 0;
    for (const store::AttemptRecord& a : run_.store->Snapshot().attempts) {
      if (a.key.stage == Stage::kCandidate && a.key.slot == slot && a.usage) {
        recorded += a.usage->cost.total;
      }
    }
    cut_share_usd_ += std::max(0.0, *candidate_allowance_ - recorded);
  }

  const store::ReusedAttempt* ReusedCandidate(int slot) const {
    return ReusedCandidateOf(run_, slot);
  }
  const store::ReusedEvaluation* ReusedEvaluation() const { return ReusedEvaluationOf(run_); }

  std::string CandidateStartLine(int slot) const {
    return "candidate " + std::to_string(slot) +
           (ReusedCandidate(slot) != nullptr
                ? " reused from " + std::string(store::ShortRunId(run_.resume->manifest.run_id))
                : " starting");
  }

  // A candidate (or reviewer) child, or its verified attempt of the run this one resumes.
  StageResult RunOrReuse(const StageChild& child, const process::CancelToken& cancel) {
    if (const store::ReusedAttempt* reused = ReusedCandidate(child.key.slot.value_or(0))) {
      return ReuseStageChild(run_, child, *reused);
    }
    return RunStageChildGuarded(child, cancel);
  }

  Result<workflow::AnonymousMap> ReuseAnonymousMap(const store::ReusedEvaluation& reused) {
    Result<workflow::AnonymousMap> map = workflow::AnonymousMapFromJson(reused.anonymous_map);
    if (!map.ok()) return map.status();
    if (Status s = run_.store->SetAnonymousMap(map->ToJson()); !s.ok()) return s;
    return map;
  }

  // The old run's verified evaluation in place of the evaluator: valid only for the very blind
  // input it judged, and checked again against this run's scope. Its attempts are copied and
  // recorded as reused; the documents go with the merger's first row, as after an evaluation.
  Result<nlohmann::json> ReuseEvaluation(const store::ReusedEvaluation& reused,
                                         const workflow::CanonicalDocument& blind,
                                         const workflow::EvaluationScope& scope) {
    const auto blind_doc = std::find_if(
        reused.documents.begin(), reused.documents.end(),
        [](const store::ReusedFile& f) { return f.name == store::kBlindCandidatesFile; });
    if (blind_doc == reused.documents.end() || blind_doc->bytes != blind.bytes) {
      return Fail(InternalError("the reused evaluation judged another blind input"),
                  Stage::kEvaluation, std::nullopt, std::nullopt);
    }
    workflow::EvaluationCheck check = workflow::ValidateEvaluation(reused.evaluation, scope);
    if (!check.ok()) {
      return Fail(workflow::EvaluationInvalid(check.errors), Stage::kEvaluation, std::nullopt, std::nullopt);
    }
    carry_.transitions.push_back(RunState::kEvaluating);
    observer_.Progress(
        {ProgressEvent::kEvaluating, 0,
         "evaluation reused from " + std::string(store::ShortRunId(run_.resume->manifest.run_id))});
    for (const store::ReusedAttempt& attempt : reused.attempts) {
      Status s = run_.store->Apply(store::ReuseBatch(attempt, run_.resume->manifest.run_id));
      if (!s.ok()) return Fail(s, Stage::kEvaluation, std::nullopt, attempt.record.key.attempt);
    }
    for (const store::ReusedFile& document : reused.documents) {
      carry_.files.push_back({document.name, document.bytes});
    }
    evaluation_kept_ = true;
    carry_.transitions.push_back(RunState::kEvaluationComplete);
    return *check.evaluation;
  }

  void ReportChildWrapper() {
    if (run_.child_wrapper.empty()) return;
    observer_.Progress({ProgressEvent::kNote, 0, workflow::ChildWrapperNotice(run_.child_wrapper)});
  }

  void ReportBudgetWarnings() {
    // The plan's warnings only: worst-case reservation pressure is a note (budget/planner.h).
    const size_t high = run_.plan.warnings.size();
    if (high > 0) {
      observer_.Progress({ProgressEvent::kNote, 0,
                          "budget warning (" + std::to_string(high) + " stages at or above 80%)"});
    }
  }

  // A child's first provider request used more prompt tokens than its stage's one-request
  // forecast: a progress warning now, and a result-details warning if the run completes.
  // Called from candidate threads too.
  void NoteCalibration(const StageResult& result, Role role) {
    if (!result.under_forecast_tokens) return;
    const std::string line = budget::CalibrationWarningText(*result.under_forecast_tokens);
    observer_.Progress({ProgressEvent::kNote, 0, line});
    std::lock_guard lock(warnings_mu_);
    warnings_.push_back({"calibration", std::string(PlanStageName(role)), line});
  }

  // A candidate's file-tool calls the walls refused, for the result details. Called from
  // candidate threads.
  void NoteRefusals(int slot, const StageResult& result) {
    std::lock_guard lock(warnings_mu_);
    AddRefusals(slot, result.tool_refusals, &refusals_);
    if (result.walk_protection) {
      // The manifest says which protection held for the run's walks: the weakest any had.
      walk_protection_ = WeakerWalkProtection(walk_protection_, result.walk_protection);
      (void)run_.store->RecordWalkProtection(*walk_protection_);
    }
    source_fetches_.insert(source_fetches_.end(), result.source_fetches.begin(),
                           result.source_fetches.end());
  }

  bool Advance(RunState state) {
    Status s = run_.store->Transition(state);
    if (!s.ok()) RecordFailure(s, std::nullopt, std::nullopt, std::nullopt);
    return s.ok();
  }

  // The candidates under the run's quorum (candidate_quorum.h). Quorum 3 is fail fast: the first
  // candidate to fail stops its siblings at once (TERM, a short grace, then KILL; their partial
  // output is kept and their attempts are recorded as cancelled) instead of letting the run wait
  // for the slowest of them, and the first failure in time is the run's error. Quorum 2 goes on
  // without one candidate that failed survivably, and once two answers verified waits at most the
  // grace window for the third before cutting it the same way. The decisions are workflow::CandidateQuorum's;
  // this drives the threads and the clock. `missing` is set when the run answers from two.
  bool RunCandidates(std::array<std::string, 3>* answers,
                     std::optional<workflow::MissingCandidate>* missing) {
    if (!Advance(RunState::kCandidatesRunning)) return false;
    observer_.Progress({ProgressEvent::kCandidatesRunning, 0, "candidates running"});
    ArmWarmStages();
    SplitCostCap();
    Result<process::CancelToken> siblings = cancel_.NewChild();
    if (!siblings.ok()) {
      RecordFailure(siblings.status(), Stage::kCandidate, std::nullopt, std::nullopt);
      return false;
    }
    // Validate never comes here (its minority rule is its own); a fail-fast row takes the policy.
    workflow::CandidateQuorum quorum(run_.policy.quorum, run_.policy.grace_seconds,
                           config::kDefaultGraceFloorSeconds);
    std::array<StageResult, 3> results;
    std::atomic<int> done{0};
    std::mutex mu;
    std::condition_variable ended_cv;
    int ended = 0;                                   // guarded by mu
    std::optional<Clock::TimePoint> grace_deadline;  // guarded by mu
    std::vector<std::thread> threads;
    for (int slot = 1; slot <= 3; ++slot) {
      threads.emplace_back([&, slot] {
        observer_.Progress({ProgressEvent::kCandidateStarted, slot, CandidateStartLine(slot)});
        const Clock::TimePoint started = run_.seams.clock->Now();
        StageResult result = RunOrReuse(CandidateChild(slot), *siblings);
        const double elapsed =
            std::chrono::duration<double>(run_.seams.clock->Now() - started).count();
        NoteCalibration(result, Role::kCandidate);
        NoteRefusals(slot, result);
        // A failed candidate is reported as failed, never counted among the complete ones.
        if (result.status.ok()) {
          observer_.Progress({ProgressEvent::kCandidateDone, slot,
                              "candidates " + std::to_string(++done) + "/3 complete"});
          ReportLanded(slot, result, started);
        } else {
          observer_.Progress(
              {ProgressEvent::kCandidateFailed, slot,
               "candidate " + std::to_string(slot) +
                   (IsCancellation(result.status) ? " cancelled"
                                                  : " failed (" + result.status.code() + ")")});
        }
        const workflow::CandidateQuorum::Next next =
            quorum.Record(slot, result.status, elapsed, ReusedCandidate(slot) != nullptr);
        if (next == workflow::CandidateQuorum::Next::kStopOthers)
          siblings->CancelWithGrace(workflow::kSiblingStopGrace);
        if (next == workflow::CandidateQuorum::Next::kStartGrace) {
          const double grace = quorum.grace_seconds().value_or(0);
          observer_.Progress({ProgressEvent::kNote, 0,
                              "2/3 candidates verified; waiting up to " +
                                  config::PolicyNumberText(grace) + " s for the third"});
          std::lock_guard lock(mu);
          grace_deadline = workflow::GraceDeadline(run_.seams.clock->Now(), grace);
        }
        results[slot - 1] = std::move(result);
        {
          std::lock_guard lock(mu);
          ++ended;
        }
        ended_cv.notify_all();
      });
    }
    const int cut = WaitForCandidates(quorum, *siblings, mu, ended_cv, ended, grace_deadline);
    for (std::thread& t : threads) t.join();
    warm_.CandidatesEnded();
    const workflow::CandidateQuorum::Outcome outcome = quorum.Finish();
    if (outcome.failure) {
      const int verified = static_cast<int>(std::count_if(
          results.begin(), results.end(), [](const StageResult& r) { return r.status.ok(); }));
      RecordFailure(WithCapNextStep(outcome.failure->status, verified), Stage::kCandidate,
                    outcome.failure->slot, 1);
      return false;
    }
    // Said once the phase ended, so it says what the run does: a cut candidate whose answer
    // verified as it was stopped is used, not left out.
    if (cut != 0) {
      const bool left_out = outcome.missing && outcome.missing->slot == cut;
      observer_.Progress(
          {ProgressEvent::kNote, 0,
           "candidate " + std::to_string(cut) +
               (left_out ? " cut: the grace window ended; answering from 2 of 3"
                         : " answered as the grace window ended; its answer is used")});
    }
    for (int slot = 1; slot <= 3; ++slot) {
      if (outcome.missing && outcome.missing->slot == slot) continue;
      (*answers)[slot - 1] = std::move(results[slot - 1].answer);
    }
    if (outcome.missing && !RecordMissing(*outcome.missing)) return false;
    if (outcome.missing && outcome.missing->reason == workflow::MissingCandidate::Reason::kCutAfterGrace) {
      HoldCutShare(outcome.missing->slot);
    }
    *missing = outcome.missing;
    carry_.transitions.push_back(RunState::kCandidatesComplete);
    return true;
  }

  // Blocks until every candidate ended; cuts the one still running when the grace window ends,
  // and returns its slot (0 when none was cut). The window is timed by the run's clock seam,
  // looked at every kGracePoll or when a candidate ends.
  int WaitForCandidates(workflow::CandidateQuorum& quorum, const process::CancelToken& siblings,
                        std::mutex& mu, std::condition_variable& ended_cv, const int& ended,
                        const std::optional<Clock::TimePoint>& grace_deadline) {
    constexpr std::chrono::milliseconds kGracePoll{50};
    std::unique_lock lock(mu);
    bool looked = false;
    int cut = 0;
    while (ended < 3) {
      if (!looked && grace_deadline && run_.seams.clock->Now() >= *grace_deadline) {
        looked = true;
        if ((cut = quorum.CutAfterGrace()) != 0) {
          lock.unlock();
          siblings.CancelWithGrace(workflow::kSiblingStopGrace);
          lock.lock();
          continue;
        }
      }
      ended_cv.wait_for(lock, kGracePoll);
    }
    return cut;
  }

  // The degraded record, in the manifest before the evaluation starts, and said at once.
  bool RecordMissing(const workflow::MissingCandidate& m) {
    store::DegradedRecord record;
    record.slot = m.slot;
    record.model = run_.models.routes[m.slot - 1].model.QualifiedId();
    record.reason = MissingReasonName(m.reason);
    if (!m.code.empty()) record.code = m.code;
    record.grace_seconds = m.grace_seconds;
    if (Status s = run_.store->RecordDegraded(record); !s.ok()) {
      RecordFailure(s, Stage::kCandidate, std::nullopt, std::nullopt);
      return false;
    }
    degraded_ = store::DegradedToJson(record);
    observer_.Progress({ProgressEvent::kNote, 0, DegradedSentence(degraded_)});
    return true;
  }

  // The person may read a verified candidate now; the later stages see it only as they always do.
  // `started` is when the candidate began.
  void ReportLanded(int slot, const StageResult& result, Clock::TimePoint started) {
    LandedCandidate landed;
    landed.slot = slot;
    landed.model = run_.models.routes[slot - 1].model.QualifiedId();
    landed.elapsed_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(run_.seams.clock->Now() - started)
            .count();
    landed.answer = result.answer;
    landed.artifact = store::AttemptPrefix({Stage::kCandidate, slot, 1}) + ".response.md";
    landed.tool_calls = result.tool_calls;
    if (const store::ReusedAttempt* reused = ReusedCandidate(slot)) {
      landed.reused_from = reused->record.reused_from.value_or(run_.resume->manifest.run_id);
    }
    observer_.CandidateLanded(landed);
  }

  // Signs of life of a stage child while it runs (stage_watch.h).
  process::ProgressCallback Watch(const StageChild& child) const {
    const std::string journal =
        child.tools.empty()
            ? ""
            : run_.store->run_dir() + "/" + store::AttemptPrefix(child.key) + ".tool-calls.jsonl";
    return WatchStageChild(observer_, *run_.seams.clock, *run_.seams.fs, child.key, journal);
  }

  // RunStageChild on a thread of its own, where an escaping exception would end the host.
  StageResult RunStageChildGuarded(const StageChild& child, const process::CancelToken& cancel) {
    try {
      return RunStageChild(run_, child, cancel);
    } catch (const std::exception& e) {
      return {InternalError(ExceptionText(e)), ""};
    } catch (...) {
      return {InternalError("unknown exception"), ""};
    }
  }

  StageChild CandidateChild(int slot) const {
    StageChild child;
    child.key = {Stage::kCandidate, slot, 1};
    child.route = kAllSlots[slot - 1];
    child.capability = Spec().candidate_capability;
    child.tools = process::CapabilityTools(child.capability);
    child.role = Role::kCandidate;
    child.output = workflow::OutputKind::kCandidate;
    child.system_prompt = workflow::CandidateSystemPromptOf(Spec());
    child.stdin_text = workflow::CandidateStdin(run_.canonical_input);
    child.request_signal_fd = warm_.signal_fd();
    child.cost_allowance_usd = candidate_allowance_;
    child.watch = Watch(child);
    return child;
  }

  // A validate run that dropped a reviewer, or a quorum-2 run that left a candidate out, gives it
  // C, so the other two are A and B.
  Result<workflow::AnonymousMap> Anonymize(std::optional<int> dropped_slot = std::nullopt) {
    Result<workflow::AnonymousMap> map = workflow::DrawAnonymousMap(*run_.seams.random);
    if (!map.ok()) return map.status();
    if (dropped_slot) map = workflow::MoveDroppedToC(*map, *dropped_slot);
    if (Status s = run_.store->SetAnonymousMap(map->ToJson()); !s.ok()) return s;
    return map;
  }

  StageChild EvaluatorChild(int attempt, std::string system_prompt, std::string input) const {
    StageChild child;
    child.key = {Stage::kEvaluation, std::nullopt, attempt};
    child.route = Slot::kEvaluator;
    child.role = attempt == 1 ? Role::kEvaluator : Role::kRepair;
    child.output = workflow::OutputKind::kEvaluator;
    child.system_prompt = std::move(system_prompt);
    child.stdin_text = std::move(input);
    child.watch = Watch(child);
    return child;
  }

  Result<nlohmann::json> Evaluate(const workflow::CanonicalDocument& blind, const workflow::EvaluationScope& scope,
                                  const std::string& system_prompt,
                                  const std::string& repair_prompt) {
    carry_.files.push_back({"blind-candidates.json", blind.bytes});
    const StageChild evaluator = Capped(EvaluatorChild(1, system_prompt, blind.bytes));
    if (!WithinCostCap(evaluator, std::nullopt)) return outcome_.error;
    carry_.transitions.push_back(RunState::kEvaluating);
    observer_.Progress({ProgressEvent::kEvaluating, 0, "evaluating candidates"});
    StageResult first = RunStageChild(run_, evaluator, cancel_, &warm_, &carry_);
    NoteCalibration(first, Role::kEvaluator);
    if (!first.status.ok()) return Fail(first.status, Stage::kEvaluation, std::nullopt, 1);
    workflow::EvaluationCheck check = workflow::ValidateEvaluation(first.answer, scope);
    if (!check.ok()) check = Repair(blind, scope, repair_prompt, first.answer, check.errors);
    if (!check.ok()) {
      if (outcome_.run_error) return outcome_.error;  // the repair child itself failed
      return Fail(Status::Error(kEvaluationInvalid, "evaluation schema repair failed: " +
                                                        workflow::EvaluationInvalid(check.errors).message()),
                  Stage::kEvaluation, std::nullopt, 2);
    }
    Result<std::string> bytes = store::CanonicalBytes(*check.evaluation, "evaluation.json");
    if (!bytes.ok()) return Fail(bytes.status(), Stage::kEvaluation, std::nullopt, std::nullopt);
    // Made durable with the merger's first row (RunStageChild's carry), or by RecordFailure.
    carry_.files.push_back({"evaluation.json", *std::move(bytes)});
    evaluation_kept_ = true;
    carry_.transitions.push_back(RunState::kEvaluationComplete);
    return *check.evaluation;
  }

  // The one repair child: given the capped error list, it must return a valid evaluation.
  workflow::EvaluationCheck Repair(const workflow::CanonicalDocument& blind, const workflow::EvaluationScope& scope,
                         const std::string& repair_prompt, const std::string& invalid,
                         const std::vector<workflow::EvaluationError>& errors) {
    const bool syntax = errors.size() == 1 && errors[0].path == "$";
    observer_.Progress(
        {ProgressEvent::kRepairing, 0,
         syntax ? "repairing evaluator JSON"
                : "evaluator schema retry (" + std::to_string(errors.size()) + " issues)"});
    Result<workflow::CanonicalDocument> input = workflow::BuildRepairInput(blind, invalid, errors);
    if (!input.ok()) {
      RecordFailure(input.status(), Stage::kEvaluation, std::nullopt, 2);
      return {std::nullopt, errors};
    }
    const StageChild repair = Capped(EvaluatorChild(2, repair_prompt, input->bytes));
    // A cap stop here is recorded at attempt 2: the repair it did not start.
    if (!WithinCostCap(repair, 2)) return {std::nullopt, errors};
    StageResult repaired = RunStageChild(run_, repair, cancel_);
    NoteCalibration(repaired, Role::kRepair);
    if (!repaired.status.ok()) {
      RecordFailure(repaired.status, Stage::kEvaluation, std::nullopt, 2);
      return {std::nullopt, errors};
    }
    return workflow::ValidateEvaluation(repaired.answer, scope);
  }

  StageChild MergerChild(std::string system_prompt, std::string input) const {
    StageChild child;
    child.key = {Stage::kMerge, std::nullopt, 1};
    child.route = Slot::kMerger;
    child.role = Role::kMerger;
    child.output = workflow::OutputKind::kMerger;
    child.system_prompt = std::move(system_prompt);
    child.stdin_text = std::move(input);
    child.watch = Watch(child);
    return child;
  }

  Result<std::string> Merge(const workflow::CanonicalDocument& input, const std::string& system_prompt) {
    const StageChild merger = Capped(MergerChild(system_prompt, input.bytes));
    if (!WithinCostCap(merger, std::nullopt)) return outcome_.error;
    carry_.transitions.push_back(RunState::kMerging);
    observer_.Progress({ProgressEvent::kMerging, 0, "merging final answer"});
    StageResult merged = RunStageChild(run_, merger, cancel_, &warm_, &carry_);
    NoteCalibration(merged, Role::kMerger);
    if (!merged.status.ok()) return Fail(merged.status, Stage::kMerge, std::nullopt, 1);
    return merged.answer;
  }

  // The cost cap before `child`'s stage starts (budget/cost_cap.h): its allowance must pay for its
  // first request. The measured spend is the manifest's usage total, Pi's own pricing of every
  // request so far. False once the stop is recorded as the run's failure at the child's stage and
  // `attempt`. Without a cap nothing is read or checked.
  bool WithinCostCap(const StageChild& child, std::optional<int> attempt) {
    if (!run_.policy.max_cost_usd) return true;
    const double spent = SpentForCap();
    const budget::CapStopKept kept{verified_candidates_, evaluation_kept_, run_.store->run_dir(),
                                   run_.store->run_id()};
    const auto bytes = static_cast<int64_t>(child.system_prompt.size() + child.stdin_text.size());
    Status cap = budget::CheckCostCapBeforeStage(run_.policy.max_cost_usd, spent,
                                                 run_.cost_forecast, child.role, bytes, kept);
    if (cap.ok()) return true;
    RecordFailure(cap, child.key.stage, std::nullopt, attempt);
    return false;
  }

  RunOutcome Commit(const std::string& merged, const workflow::AnonymousMap& map) {
    warm_.EndUnused();  // none is left after the merge; this keeps that true by construction
    // Every child reaped and its exit recorded before the result is committed; a child that
    // failed after its answer fails the run (child_exits.h).
    if (std::optional<LateFailure> late = run_.exits->Settle(*run_.store, *run_.seams.fs)) {
      RecordFailure(late->status, late->key.stage, late->key.slot, late->key.attempt);
      return outcome_;
    }
    const store::Manifest manifest = run_.store->Snapshot();
    workflow::ResultDetailsInput details;
    details.run_id = manifest.run_id;
    details.workflow = manifest.workflow;
    for (size_t i = 0; i < 3; ++i) {
      details.models.candidates[i] = run_.models.routes[i].model.QualifiedId();
    }
    details.models.evaluator = run_.models.route(Slot::kEvaluator).model.QualifiedId();
    details.models.merger = run_.models.route(Slot::kMerger).model.QualifiedId();
    details.models.thinking_level = run_.models.thinking_level;
    details.anonymous_map = map;
    details.usage = store::UsageToJson(manifest.usage);
    details.usage_by_role = store::UsageByRoleJson(store::UsageByRole(manifest));
    details.model_requests = store::ModelRequests(manifest);
    for (const store::AttemptRecord& attempt : manifest.attempts) {
      if (attempt.key.stage == Stage::kCandidate) ++details.attempts.candidate;
      if (attempt.key.stage == Stage::kEvaluation && attempt.key.attempt == 1)
        ++details.attempts.evaluation;
      if (attempt.key.stage == Stage::kEvaluation && attempt.key.attempt == 2)
        ++details.attempts.evaluation_repair;
      if (attempt.key.stage == Stage::kMerge) ++details.attempts.merge;
    }
    for (const auto& [name, ref] : manifest.artifacts) {
      details.artifacts.push_back({name, ref.path, ref.byte_length, ref.sha256});
    }
    for (const budget::BudgetWarning& w : run_.plan.warnings) {
      details.warnings.push_back(
          {"budget", std::string(PlanStageName(run_.plan.stages[w.stage_index].stage)), w.message});
    }
    {
      std::lock_guard lock(warnings_mu_);
      details.warnings.insert(details.warnings.end(), warnings_.begin(), warnings_.end());
      details.tool_refusals = refusals_;
      details.source_failures = FailedSources(source_fetches_);
      details.no_source_fetched = Spec().declares_sources && NoSourceFetched(source_fetches_);
    }
    details.estimate = budget::EstimateSummaryJson(run_.cost_forecast);
    details.dropped_reviewers = dropped_reviewers_;
    details.degraded = degraded_;
    details.resumed_from = manifest.resumed_from;
    if (!run_.child_wrapper.empty()) {
      details.child_wrapper = run_.child_wrapper;
      details.warnings.push_back(
          {"child_wrapper", std::nullopt, workflow::ChildWrapperNotice(run_.child_wrapper)});
    }
    Result<nlohmann::json> built = workflow::BuildResultDetails(details);
    if (!built.ok()) return FailOutcome(built.status(), Stage::kMerge);
    Result<store::CommittedRefs> committed = run_.store->CommitResult(merged, *built);
    if (!committed.ok()) return FailOutcome(committed.status(), Stage::kMerge);
    observer_.Progress({ProgressEvent::kCompleted, 0, "completed"});
    outcome_.end = RunEnd::kCompleted;
    outcome_.error = Status::Ok();
    outcome_.artifact_dir = run_.store->run_dir();
    const store::Manifest completed = run_.store->Snapshot();
    outcome_.usage = store::UsageToJson(completed.usage);
    outcome_.model_requests = store::RequestsJson(completed);
    if (Spec().declares_sources) {
      outcome_.source_report = {
          {"source_failures", built->value("source_failures", nlohmann::json())},
          {"no_source_fetched", built->value("no_source_fetched", false)}};
    }
    outcome_.degraded = degraded_;
    return outcome_;
  }

  RunOutcome FailOutcome(const Status& status, std::optional<Stage> stage) {
    RecordFailure(status, stage, std::nullopt, std::nullopt);
    return outcome_;
  }

  // RecordFailure, for a caller that returns the failure as its own error.
  Status Fail(const Status& status, std::optional<Stage> stage, std::optional<int> slot,
              std::optional<int> attempt) {
    RecordFailure(status, stage, slot, attempt);
    return outcome_.error;
  }

  // Writes the terminal state (failed, or cancelled) durably and fills outcome_.
  void RecordFailure(const Status& status, std::optional<Stage> stage, std::optional<int> slot,
                     std::optional<int> attempt) {
    const bool cancelled = cancel_.IsCancelled() || IsCancellation(status);
    const RunState terminal = cancelled ? RunState::kCancelled : RunState::kFailed;
    // A cancellation that named its cause records it as the message: the durable place every
    // later view reads it from (run/cancel_cause.h). A child's own "child cancelled" says less.
    const char* cause = cancelled ? cancel_.cause() : nullptr;
    store::RunError error{cancelled ? std::string(kChildCancelled) : status.code(),
                          cause != nullptr ? CancelledByMessage(cause) : status.message(), stage,
                          slot, attempt};
    if (cause != nullptr) error.cancelled_by = cause;
    // The documents of a stage that never began (its carry) are still evidence of the run.
    if (!carry_.files.empty()) {
      store::StoreBatch documents;
      documents.files = std::move(carry_.files);
      (void)run_.store->Apply(documents);
    }
    carry_ = {};
    warm_.EndUnused();  // before the terminal manifest, which must list them
    // Every child reaped and its exit recorded before the terminal manifest; the run fails
    // already, so what they did after their answers changes nothing but their records.
    (void)run_.exits->Settle(*run_.store, *run_.seams.fs);
    store::FailReport report = run_.store->Fail(terminal, error);
    outcome_.end = cancelled ? RunEnd::kCancelled : RunEnd::kFailed;
    outcome_.error = Status::Error(error.code, error.message);
    outcome_.run_error = error;
    outcome_.artifact_dir = run_.store->run_dir();
    const store::Manifest terminal_manifest = run_.store->Snapshot();
    outcome_.usage = store::UsageToJson(terminal_manifest.usage);
    outcome_.model_requests = store::RequestsJson(terminal_manifest);
    outcome_.progress = store::FailureProgress(terminal_manifest);
    if (!report.terminal.ok()) outcome_.summary_note = report.terminal.ToString();
    if (!report.summary.ok()) outcome_.summary_note = report.summary_note;
    observer_.Progress(
        cancelled ? ProgressUpdate{ProgressEvent::kCancelled, 0,
                                   "cancelled (" + (cause != nullptr ? cause : error.message) + ")"}
                  : ProgressUpdate{ProgressEvent::kFailed, 0, "failed (" + error.code + ")"});
  }

  PreparedRun& run_;
  const process::CancelToken& cancel_;
  RunObserver& observer_;
  RunOutcome outcome_;
  std::mutex warnings_mu_;
  std::vector<workflow::ResultWarning> warnings_;         // guarded by warnings_mu_
  std::vector<workflow::ToolRefusalRow> refusals_;        // guarded by warnings_mu_
  std::vector<SourceFetch> source_fetches_;     // guarded by warnings_mu_
  std::optional<std::string> walk_protection_;  // guarded by warnings_mu_
  // validate: the reviewers dropped under the minority rule (set once the reviewers ended).
  std::optional<std::vector<workflow::DroppedReviewerRow>> dropped_reviewers_;
  // What a cost-cap stop keeps (WithinCostCap): the verified candidate answers and whether the
  // evaluation verified and was written.
  int verified_candidates_ = 0;
  bool evaluation_kept_ = false;
  // Each candidate's share of a capped run's cost cap (SplitCostCap); nullopt without a cap.
  std::optional<double> candidate_allowance_;
  double cut_share_usd_ = 0;  // HoldCutShare
  // A quorum-2 run that answers from two candidates: its `degraded` record (null otherwise).
  nlohmann::json degraded_;
  WarmStages warm_;
  // What the next stage child's first row makes durable with it (RunStageChild's carry): the
  // stage boundary's documents and transitions, in one manifest write instead of one each.
  store::StoreBatch carry_;
};

}  // namespace

std::string FailureText(const RunOutcome& outcome) {
  auto part = [](const char* name, const std::string& value) {
    return std::string(name) + "=" + (value.empty() ? "none" : value);
  };
  const store::RunError error = outcome.run_error.value_or(store::RunError{});
  const std::string stage =
      error.stage ? std::string(pi_fusion::StageName(*error.stage)) : "preflight";
  const std::string slot = error.slot ? std::to_string(*error.slot) : "";
  const std::string attempt = error.attempt ? std::to_string(*error.attempt) : "";
  return "Fusion failed (" + part("stage", stage) + ", " + part("slot", slot) + ", " +
         part("attempt", attempt) + "): " + outcome.error.code() + ": " + outcome.error.message();
}

RunOutcome Execute(PreparedRun& run, const process::CancelToken& cancel, RunObserver& observer) {
  return Run(run, cancel, observer).ExecuteGuarded();
}

}  // namespace pi_fusion::run
