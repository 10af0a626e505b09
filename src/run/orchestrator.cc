#include "run/orchestrator.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "config/config_constants.h"
#include "config/models_config.h"
#include "run/agreement_stage.h"
#include "run/degraded_text.h"
#include "run/later_stages.h"
#include "run/order_stage.h"
#include "run/resume_inputs.h"
#include "run/run_commit.h"
#include "run/run_context.h"
#include "run/run_cost_cap.h"
#include "run/run_failure.h"
#include "run/run_reuse.h"
#include "run/stage_children.h"
#include "run/thread_entry.h"
#include "run/validate_sequence.h"
#include "store/run_id.h"
#include "workflow/candidate_quorum.h"
#include "workflow/stage_inputs.h"
#include "workflow/workflow_constants.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {
namespace {

using store::RunState;

// What the candidate threads share with the run's thread while they run.
struct CandidatePhase {
  CandidatePhase(const config::Policy& policy, process::CancelToken siblings_token)
      : quorum(policy.quorum, policy.grace_seconds, config::kDefaultGraceFloorSeconds),
        siblings(std::move(siblings_token)) {}

  workflow::CandidateQuorum quorum;
  process::CancelToken siblings;  // stops the candidates still running: fail fast, or a cut
  std::atomic<int> done{0};       // the candidates complete, for the progress line
  std::mutex mu;
  std::condition_variable ended_cv;
  int ended = 0;                                   // guarded by mu
  std::optional<Clock::TimePoint> grace_deadline;  // guarded by mu
};

std::string CandidateStartLine(const RunContext& ctx, int slot) {
  return "candidate " + std::to_string(slot) +
         (ReusedCandidateOf(ctx.run, slot) != nullptr
              ? " reused from " + std::string(store::ShortRunId(ctx.run.resume->manifest.run_id))
              : " starting");
}

// One candidate, on its own thread: run (or reused), noted, reported, and recorded with the
// quorum, which may stop its siblings or start the grace window.
StageResult RunCandidate(RunContext& ctx, int slot, CandidatePhase& phase) {
  ctx.observer.Progress({ProgressEvent::kCandidateStarted, slot, CandidateStartLine(ctx, slot)});
  const Clock::TimePoint started = ctx.run.seams.clock->Now();
  StageResult result = RunOrReuse(ctx, CandidateChild(ctx, slot), phase.siblings);
  const double elapsed =
      std::chrono::duration<double>(ctx.run.seams.clock->Now() - started).count();
  NoteCalibration(ctx, result, Role::kCandidate);
  ctx.notes.AddChildFindings(slot, result, *ctx.run.store);
  // A failed candidate is reported as failed, never counted among the complete ones.
  if (result.status.ok()) {
    ctx.observer.Progress({ProgressEvent::kCandidateDone, slot,
                           "candidates " + std::to_string(++phase.done) + "/3 complete"});
    ReportLanded(ctx, slot, result, started);
  } else {
    ctx.observer.Progress(
        {ProgressEvent::kCandidateFailed, slot,
         "candidate " + std::to_string(slot) +
             (IsCancellation(result.status) ? " cancelled"
                                            : " failed (" + result.status.code() + ")")});
  }
  const workflow::CandidateQuorum::Next next = phase.quorum.Record(
      slot, result.status, elapsed, ReusedCandidateOf(ctx.run, slot) != nullptr);
  if (next == workflow::CandidateQuorum::Next::kStopOthers) {
    phase.siblings.CancelWithGrace(workflow::kSiblingStopGrace);
  }
  // An adaptive run gives no grace window: candidate 3 runs only when it is needed, and then to
  // its end.
  if (next == workflow::CandidateQuorum::Next::kStartGrace && !ctx.run.policy.adaptive) {
    const double grace = phase.quorum.grace_seconds().value_or(0);
    ctx.observer.Progress({ProgressEvent::kNote, 0,
                           "2/3 candidates verified; waiting up to " +
                               config::PolicyNumberText(grace) + " s for the third",
                           static_cast<int64_t>(grace * 1000)});
    std::lock_guard lock(phase.mu);
    phase.grace_deadline = workflow::GraceDeadline(ctx.run.seams.clock->Now(), grace);
  }
  return result;
}

// Blocks until `count` candidates ended; cuts the one still running when the grace window ends,
// and returns its slot (0 when none was cut). The window is timed by the run's clock seam,
// looked at every kGracePoll or when a candidate ends.
int WaitForCandidates(const RunContext& ctx, CandidatePhase& phase, int count = 3) {
  constexpr std::chrono::milliseconds kGracePoll{50};
  std::unique_lock lock(phase.mu);
  bool looked = false;
  int cut = 0;
  while (phase.ended < count) {
    if (!looked && phase.grace_deadline && ctx.run.seams.clock->Now() >= *phase.grace_deadline) {
      looked = true;
      if ((cut = phase.quorum.CutAfterGrace()) != 0) {
        lock.unlock();
        phase.siblings.CancelWithGrace(workflow::kSiblingStopGrace);
        lock.lock();
        continue;
      }
    }
    phase.ended_cv.wait_for(lock, kGracePoll);
  }
  return cut;
}

// The degraded record, in the manifest before the evaluation starts, and said at once.
bool RecordMissing(RunContext& ctx, const workflow::MissingCandidate& m) {
  store::DegradedRecord record;
  record.slot = m.slot;
  record.model = ctx.run.models.routes[m.slot - 1].model.QualifiedId();
  record.reason = MissingReasonName(m.reason);
  if (!m.code.empty()) record.code = m.code;
  record.grace_seconds = m.grace_seconds;
  if (Status s = ctx.run.store->RecordDegraded(record); !s.ok()) {
    RecordFailure(ctx, s, Stage::kCandidate, std::nullopt, std::nullopt);
    return false;
  }
  ctx.degraded = store::DegradedToJson(record);
  ctx.observer.Progress({ProgressEvent::kNote, 0, DegradedSentence(ctx.degraded)});
  return true;
}

// What the candidate phase decided, once every candidate ended: the run's failure, or the
// answers it goes on with (`missing` set when it answers from two). Said once the phase ended, so
// it says what the run does: a cut candidate whose answer verified as it was stopped is used,
// not left out.
bool FinishCandidates(RunContext& ctx, const workflow::CandidateQuorum::Outcome& outcome, int cut,
                      std::array<StageResult, 3>& results, std::array<std::string, 3>* answers) {
  if (outcome.failure) {
    const int verified = static_cast<int>(std::count_if(
        results.begin(), results.end(), [](const StageResult& r) { return r.status.ok(); }));
    RecordFailure(ctx, WithCapNextStep(ctx, outcome.failure->status, verified), Stage::kCandidate,
                  outcome.failure->slot, 1);
    return false;
  }
  const std::optional<workflow::MissingCandidate>& missing = outcome.missing;
  if (cut != 0) {
    const bool left_out = missing && missing->slot == cut;
    ctx.observer.Progress(
        {ProgressEvent::kNote, 0,
         "candidate " + std::to_string(cut) +
             (left_out ? " cut: the grace window ended; answering from 2 of 3"
                       : " answered as the grace window ended; its answer is used")});
  }
  for (int slot = 1; slot <= 3; ++slot) {
    if (missing && missing->slot == slot) continue;
    (*answers)[slot - 1] = std::move(results[slot - 1].answer);
  }
  if (missing && !RecordMissing(ctx, *missing)) return false;
  if (missing && missing->reason == workflow::MissingCandidate::Reason::kCutAfterGrace) {
    HoldCutShare(ctx, missing->slot);
  }
  ctx.carry.transitions.push_back(RunState::kCandidatesComplete);
  return true;
}

// The candidates under the run's quorum (candidate_quorum.h). Quorum 3 is fail fast: the first
// candidate to fail stops its siblings at once (TERM, a short grace, then KILL; their partial
// output is kept and their attempts are recorded as cancelled) instead of letting the run wait
// for the slowest of them, and the first failure in time is the run's error. Quorum 2 goes on
// without one candidate that failed survivably, and once two answers verified waits at most the
// grace window for the third before cutting it the same way. The decisions are
// workflow::CandidateQuorum's; this drives the threads and the clock. `missing` is set when the
// run answers from two.
//
// An adaptive run (policy.panel "adaptive") starts candidates 1 and 2 only. When both verified,
// DecideAgreement says whether they agree: then the third is never asked and `skipped` is set to
// 3 (the run answers from two, by design, not degraded). When they do not agree, or quorum 2
// left one of them out, candidate 3 runs to its end (no grace window) and the phase ends as a
// full run's would.
bool RunCandidates(RunContext& ctx, std::array<std::string, 3>* answers,
                   std::optional<workflow::MissingCandidate>* missing,
                   std::optional<int>* skipped) {
  if (!StartCandidateStage(ctx)) return false;
  Result<process::CancelToken> siblings = ctx.cancel.NewChild();
  if (!siblings.ok()) {
    RecordFailure(ctx, siblings.status(), Stage::kCandidate, std::nullopt, std::nullopt);
    return false;
  }
  // Validate never comes here (its minority rule is its own); a fail-fast row takes the policy.
  CandidatePhase phase(ctx.run.policy, *std::move(siblings));
  std::array<StageResult, 3> results;
  std::vector<std::thread> threads;
  auto start = [&](int slot) {
    threads.emplace_back([&, slot] {
      results[slot - 1] = RunCandidate(ctx, slot, phase);
      {
        std::lock_guard lock(phase.mu);
        ++phase.ended;
      }
      phase.ended_cv.notify_all();
    });
  };
  const bool adaptive = ctx.run.policy.adaptive;
  for (int slot = 1; slot <= (adaptive ? 2 : 3); ++slot) start(slot);
  if (adaptive) {
    WaitForCandidates(ctx, phase, 2);
    const bool both = results[0].status.ok() && results[1].status.ok();
    const bool ended = phase.quorum.Failed() || IsCancellation(results[0].status) ||
                       IsCancellation(results[1].status);
    if (both) {
      ctx.verified_candidates = 2;  // what a failed check (the cost cap's stop) keeps
      Result<bool> agree = DecideAgreement(ctx, results[0].answer, results[1].answer);
      if (!agree.ok() || *agree) {
        for (std::thread& t : threads) t.join();
        ctx.warm.CandidatesEnded();
        if (!agree.ok()) return false;  // recorded as the run's failure
        (*answers)[0] = std::move(results[0].answer);
        (*answers)[1] = std::move(results[1].answer);
        ctx.carry.transitions.push_back(RunState::kCandidatesComplete);
        *skipped = 3;
        return true;
      }
    }
    if (!ended) start(3);  // they disagree, or quorum 2 goes on without one of them
  }
  const int cut = WaitForCandidates(ctx, phase, static_cast<int>(threads.size()));
  for (std::thread& t : threads) t.join();
  ctx.warm.CandidatesEnded();
  const workflow::CandidateQuorum::Outcome outcome = phase.quorum.Finish();
  if (!FinishCandidates(ctx, outcome, cut, results, answers)) return false;
  *missing = outcome.missing;
  return true;
}

// The fusion sequence (reason, investigate, research): the candidates under the run's quorum,
// the letters, the blind evaluation, the merger, the commit.
RunOutcome ExecuteFusion(RunContext& ctx) {
  std::array<std::string, 3> answers;
  std::optional<workflow::MissingCandidate> missing;
  std::optional<int> skipped;  // an adaptive run whose candidates 1 and 2 agreed: 3
  if (!RunCandidates(ctx, &answers, &missing, &skipped)) return ctx.outcome;
  const std::optional<int> left_out = missing ? std::optional<int>(missing->slot) : skipped;
  ctx.verified_candidates = left_out ? 2 : 3;
  // A resumed run that reuses all three candidates and the evaluation keeps the old letters.
  const store::ReusedEvaluation* reused = left_out ? nullptr : ReusedEvaluationOf(ctx.run);
  // A degraded run's missing candidate (or the third an adaptive run did not ask) takes C, so
  // the evaluator and the merger see exactly A and B: no stage input says that a third one
  // existed, or was skipped.
  Result<workflow::AnonymousMap> map = AnonymizeOrReuse(ctx, reused, left_out);
  if (!map.ok()) return FailOutcome(ctx, map.status(), Stage::kEvaluation);
  const size_t count = left_out ? 2 : workflow::kCandidateCount;
  std::vector<workflow::AnonymousCandidate> candidates;
  workflow::EvaluationScope scope;
  scope.candidate_ids.clear();
  scope.checked_claims = EvaluatorTools(ctx);
  for (size_t i = 0; i < count; ++i) {
    const std::string id(workflow::kCandidateIds[i]);
    candidates.push_back({id, answers[map->SlotOf(id) - 1]});
    scope.candidate_ids.push_back(id);
  }
  Result<workflow::CanonicalDocument> blind =
      workflow::BuildBlindInput(ctx.run.canonical_input, candidates, count);
  if (!blind.ok()) return FailOutcome(ctx, blind.status(), Stage::kEvaluation);
  Result<nlohmann::json> evaluation = EvaluateOrReuse(ctx, reused, *blind, scope);
  if (!evaluation.ok()) return ctx.outcome;
  Result<std::optional<std::vector<workflow::ConflictOrder>>> order =
      CheckOrder(ctx, candidates, *evaluation, *map);
  if (!order.ok()) return ctx.outcome;
  const nlohmann::json notes =
      *order ? workflow::MergeOrderNotes(**order) : nlohmann::json(nullptr);
  Result<workflow::CanonicalDocument> input = workflow::BuildMergeInput(
      ctx.run.canonical_input, candidates, *evaluation, count, *order ? &notes : nullptr);
  if (!input.ok()) return FailOutcome(ctx, input.status(), Stage::kMerge);
  Result<std::string> merged = Merge(ctx, *input);
  if (!merged.ok()) return ctx.outcome;
  ctx.evaluation = *evaluation;
  for (size_t slot = 1; slot <= 3; ++slot) {
    if (left_out && static_cast<size_t>(*left_out) == slot) continue;
    ctx.cited_texts.push_back({"candidate " + std::to_string(slot), answers[slot - 1]});
  }
  return Commit(ctx, *merged, *map);
}

RunOutcome ExecuteStages(RunContext& ctx) {
  // The run layer's one catch on the run's own thread (thread_entry.h): every path of a run ends
  // in a durable terminal state, even an exception from a layer below.
  return CatchAtThreadEntry(
      [&ctx] {
        ReportRunStart(ctx);
        // The stage shape picks the sequence; each runs its candidates under its shape's failure
        // rule (the table pairs them: workflow_spec_test).
        if (ctx.Spec().shape == workflow::StageShape::kValidation) return ExecuteValidate(ctx);
        return ExecuteFusion(ctx);
      },
      [&ctx](const std::string& what) { return FailAfterException(ctx, what); });
}

}  // namespace

RunOutcome Execute(PreparedRun& run, const process::CancelToken& cancel, RunObserver& observer) {
  // The pool is an optimization: whatever fails around it leaves the candidates to start cold.
  try {
    if (!run.pool) {
      run.pool = RunPool::For(run.seams.pool, run.policy.keep_warm_seconds,
                              PiVersionOf(*run.seams.fs, run.request.host.pi_cli_path));
    }
  } catch (...) {
    run.pool.reset();
  }
  RunContext ctx(run, cancel, observer);
  RunOutcome outcome = ExecuteStages(ctx);
  // The run is terminal: its candidates' processes are kept ready for the next run (a run that
  // was cancelled, by bg_kill or by Pi's quit, leaves none).
  try {
    if (run.pool && !cancel.IsCancelled()) run.pool->KeepReady();
  } catch (...) {
  }
  return outcome;
}

}  // namespace pi_fusion::run
