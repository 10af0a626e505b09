#include "workflow/validation_reviewers.h"

#include <utility>

#include "core/error_codes.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

bool IsDroppableReviewerFailure(const Status& status) {
  const std::string& code = status.code();
  return code == kValidationReportsInvalid || code == kChildExitFailed || code == kChildTimeout ||
         code == kChildStalled || code == kChildOutputCap;
}

ReviewerTally::Next ReviewerTally::Record(int slot, const Status& end) {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_ || end.ok()) return Next::kWait;
  if (!IsDroppableReviewerFailure(end)) {
    failure_ = Failure{end, slot};
    return Next::kCancelOthers;
  }
  dropped_.push_back({slot, end});
  if (dropped_.size() < 2) return Next::kWait;
  std::string message = "2 of 3 validation reviews are unusable";
  for (const DroppedReviewer& d : dropped_) {
    message +=
        "; reviewer " + std::to_string(d.slot) + ": " + d.why.code() + ": " + d.why.message();
  }
  failure_ = Failure{Status::Error(std::string(kValidationReportsInvalid), message), slot};
  return Next::kCancelOthers;
}

std::optional<ReviewerTally::Failure> ReviewerTally::failure() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_;
}

std::vector<DroppedReviewer> ReviewerTally::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

AnonymousMap MoveDroppedToC(const AnonymousMap& drawn, int dropped_slot) {
  AnonymousMap map = drawn;
  std::array<std::string, 3>& ids = map.candidate_for_slot;
  const int c_slot = map.SlotOf("C");
  if (c_slot != 0 && c_slot != dropped_slot) std::swap(ids[dropped_slot - 1], ids[c_slot - 1]);
  return map;
}

}  // namespace pi_fusion::workflow
