// Validate's minority rule for its three reviewers (the validate workflow's candidates).
//
// A reviewer is unusable when its report stays invalid after the one fence recovery, or when its
// child failed in a way that says nothing about the run's integrity: a provider error or crash
// (child_exit_failed), a timeout, or the output cap. One unusable reviewer is dropped and named
// in the report's limitations; the other two go on as A and B. A failing reviewer never cancels
// healthy ones. A second unusable reviewer fails the run at once with validation_reports_invalid
// and the reviewer still running is cancelled. Any other failure — a tool-call audit or runtime
// guard failure, a protocol violation, cancellation, a store error — is fatal as in every
// workflow, and also cancels the reviewers still running.
//
// Other workflows have no minority rule; this file is the one exception.
//
// ReviewerTally is thread-safe; the functions are pure.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pi_fusion/status.h"
#include "workflow/anonymize.h"

namespace pi_fusion::workflow {

// True when a reviewer child's own failure makes it unusable rather than failing the run.
bool IsDroppableReviewerFailure(const Status& status);

struct DroppedReviewer {
  int slot = 0;
  Status why;  // the child's failure, or validation_reports_invalid naming the report's error
};

class ReviewerTally {
 public:
  // What the caller does after recording one reviewer's end.
  enum class Next { kWait, kCancelOthers };

  // Records reviewer `slot`'s end: ok when its report is usable, else why not. Ends recorded
  // after the run's fate was decided (the cancelled reviewers) change nothing.
  Next Record(int slot, const Status& end);

  // After every reviewer ended: the run's failure, if any, and the slot it is charged to.
  struct Failure {
    Status status;
    int slot = 0;
  };
  std::optional<Failure> failure() const;
  // The dropped reviewer (at most one when failure() is empty).
  std::vector<DroppedReviewer> dropped() const;

 private:
  mutable std::mutex mu_;
  std::optional<Failure> failure_;
  std::vector<DroppedReviewer> dropped_;
};

// The anonymous map after dropping `dropped_slot`: the drawn map with the dropped reviewer moved
// to C, so the two remaining reviewers are A and B in the drawn (uniformly random) order.
AnonymousMap MoveDroppedToC(const AnonymousMap& drawn, int dropped_slot);

}  // namespace pi_fusion::workflow
