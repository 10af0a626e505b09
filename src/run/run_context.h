// RunContext: what the pieces of one run after preflight share. Each of the run's two sequences
// (the fusion sequence in orchestrator.cc, validate's in validate_sequence.h) drives one; the stage
// children (stage_children.h), the later stages (later_stages.h), the reuse of a resumed run's work
// (run_reuse.h), the failure record (run_failure.h) and the commit (run_commit.h) take it by
// reference. Also what the stages report through it while they run: calibration warnings,
// refused tool calls, source fetches and landed candidates.
//
// Thread-safety: the run's own thread owns it. Candidate and reviewer threads read `run` and what
// was set before they started, call `observer` (thread-safe), and add to `notes`, which holds its
// own mutex; nothing else.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "process/cancel_token.h"
#include "run/child_stage.h"
#include "run/citation_check.h"
#include "run/run_request.h"
#include "run/source_failures.h"
#include "run/warm_stages.h"
#include "store/run_store.h"
#include "workflow/result_details.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::run {

// What the stage children leave for the result details while the run works. Thread-safe: the
// candidate threads add to it.
class RunNotes {
 public:
  void AddWarning(workflow::ResultWarning warning);
  // A candidate's file-tool calls the walls refused, and its fetches of declared sources. The
  // manifest says which protection held for the run's walks: the weakest any had, recorded in
  // `store` as it weakens.
  void AddChildFindings(int slot, const StageResult& result, store::RunStore& store);
  // The warnings, refusals and (for a workflow that declares sources) the source report so far.
  void FillDetails(bool declares_sources, workflow::ResultDetailsInput* details) const;

 private:
  mutable std::mutex mu_;
  std::vector<workflow::ResultWarning> warnings_;   // guarded by mu_
  std::vector<workflow::ToolRefusalRow> refusals_;  // guarded by mu_
  std::vector<SourceFetch> source_fetches_;         // guarded by mu_
  std::optional<std::string> walk_protection_;      // guarded by mu_
};

struct RunContext {
  RunContext(PreparedRun& prepared, const process::CancelToken& run_cancel,
             RunObserver& run_observer)
      : run(prepared), cancel(run_cancel), observer(run_observer), warm(prepared) {}
  RunContext(const RunContext&) = delete;
  RunContext& operator=(const RunContext&) = delete;

  const workflow::WorkflowSpec& Spec() const {
    return workflow::SpecOf(run.request.request.workflow);
  }

  PreparedRun& run;
  const process::CancelToken& cancel;
  RunObserver& observer;
  // How the run ended, once the failure record (run_failure.h) or the commit wrote it.
  RunOutcome outcome;
  WarmStages warm;
  // What the next stage child's first row makes durable with it (RunStageChild's carry): the
  // stage boundary's documents and transitions, in one manifest write instead of one each.
  store::StoreBatch carry;
  RunNotes notes;
  // validate: the reviewers dropped under the minority rule (set once the reviewers ended).
  std::optional<std::vector<workflow::DroppedReviewerRow>> dropped_reviewers;
  // What a cost-cap stop keeps (WithinCostCap): the verified candidate answers and whether the
  // evaluation verified and was written.
  int verified_candidates = 0;
  bool evaluation_kept = false;
  // Each candidate's share of a capped run's cost cap (StartCandidateStage); nullopt without a
  // cap.
  std::optional<double> candidate_allowance;
  double cut_share_usd = 0;  // HoldCutShare
  // A quorum-2 run that answers from two candidates: its `degraded` record (null otherwise).
  nlohmann::json degraded;
  // An adaptive run once it decided: its `adaptive` record (store::AdaptiveToJson; null otherwise).
  nlohmann::json adaptive;
  // What the commit judges (run/citation_check.h, run/judgment_text.h): the texts whose
  // citations it checks besides the answer (each candidate's, validate's findings' locations),
  // and the evaluation, whose agreements and conflicts it counts.
  std::vector<CitedText> cited_texts;
  nlohmann::json evaluation;
  // The order check's record (order_stage.h) when it ran; null otherwise.
  nlohmann::json order_check;
};

// The notes a run starts with: its debugging child wrapper and the budget plan's warnings.
void ReportRunStart(RunContext& ctx);

// A child's first provider request used more prompt tokens than its stage's one-request
// forecast: a progress warning now, and a result-details warning if the run completes.
// Called from candidate threads too.
void NoteCalibration(RunContext& ctx, const StageResult& result, Role role);

// The person may read a verified candidate now; the later stages see it only as they always do.
// `started` is when the candidate began. Called from candidate threads.
void ReportLanded(RunContext& ctx, int slot, const StageResult& result, Clock::TimePoint started);

}  // namespace pi_fusion::run
