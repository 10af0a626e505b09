// The reviewer phase of a validate run: three reviewers in parallel under the minority rule
// (validation_reviewers.h). Each reviewer child has its own cancel token, relayed from the run's,
// so the run can cancel the reviewer still running once a second unusable report (or a fatal
// failure) decided it. A report recovered from its ```json fence is audited here: its
// contract event is written before the report is used.
//
// Thread-safe like RunStageChild: blocks its calling thread and joins its reviewer threads.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "process/cancel_token.h"
#include "run/child_stage.h"
#include "run/run_request.h"
#include "workflow/validation_report.h"
#include "workflow/validation_reviewers.h"

namespace pi_fusion::run {

struct UsableReviewer {
  int slot = 0;
  workflow::ValidationReport report;
  bool fence_recovered = false;  // its contract event was written
};

struct ReviewerPhase {
  std::optional<workflow::ReviewerTally::Failure> failure;  // the run fails with this when set
  std::vector<UsableReviewer> usable;              // ordered by slot; 2 or 3 when no failure
  std::vector<workflow::DroppedReviewer> dropped;  // at most 1 when no failure
};

// Runs (or, in a resumed run, reuses) one reviewer: RunStageChild, or ReuseStageChild.
using ReviewerRunner =
    std::function<StageResult(const StageChild& child, const process::CancelToken& cancel)>;

// Sees a reviewer's slot, its StageResult and its end: ok only when its report is usable.
using ReviewerResultCallback =
    std::function<void(int slot, const StageResult& result, const Status& end)>;

// Runs reviewer slots 1..3 with `run_child(child_for(slot), …)`; `on_result`, when set, sees each
// reviewer on its thread once its report was read (it must be thread-safe). A reviewer whose
// child answered but whose report is unusable has that recorded as its attempt's error.
// REQUIRES: `run.store` is open and in candidates_running.
ReviewerPhase RunReviewers(PreparedRun& run, const std::function<StageChild(int)>& child_for,
                           const ReviewerRunner& run_child, const process::CancelToken& cancel,
                           RunObserver& observer,
                           const ReviewerResultCallback& on_result = nullptr);

}  // namespace pi_fusion::run
