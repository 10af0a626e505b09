#include "workflow/candidate_quorum.h"

#include <algorithm>
#include <cmath>

#include "core/error_codes.h"

namespace pi_fusion::workflow {

bool IsSurvivableCandidateFailure(const Status& status) {
  const std::string& code = status.code();
  return code == kChildExitFailed || code == kChildTimeout || code == kChildRuntimeLimitExceeded ||
         code == kCostCapExceeded || code == kChildStalled;
}

double GraceWindowSeconds(std::optional<double> grace_seconds, double floor_seconds,
                          double second_elapsed_seconds) {
  if (grace_seconds) return *grace_seconds;
  // Tenths of a second: the window is shown to people and recorded, and finer means nothing.
  return std::max(floor_seconds, std::round(second_elapsed_seconds * 5) / 10);
}

Clock::TimePoint GraceDeadline(Clock::TimePoint now, double seconds) {
  using Duration = Clock::TimePoint::duration;
  const double left = std::chrono::duration<double>(Clock::TimePoint::max() - now).count();
  // Half the range left: a margin for the rounding of the conversion back to the clock's ticks.
  if (!(seconds < left / 2)) return Clock::TimePoint::max();
  return now + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
}

const char* MissingReasonName(MissingCandidate::Reason reason) {
  return reason == MissingCandidate::Reason::kFailed ? "failed" : "cut_after_grace";
}

CandidateQuorum::CandidateQuorum(int quorum, std::optional<double> grace_seconds,
                                 double grace_floor_seconds)
    : quorum_(quorum), configured_grace_(grace_seconds), grace_floor_(grace_floor_seconds) {}

CandidateQuorum::Next CandidateQuorum::Record(int slot, const Status& end, double elapsed_seconds,
                                              bool reused) {
  std::lock_guard<std::mutex> lock(mu_);
  ends_[slot - 1] = end;
  const bool cut = missing_ && missing_->slot == slot &&
                   missing_->reason == MissingCandidate::Reason::kCutAfterGrace;
  if (end.ok()) {
    ++verified_;
    if (!reused) ran_elapsed_ = elapsed_seconds;
    if (cut) missing_.reset();  // it answered before the phase ended: its answer is used
    if (failure_ || quorum_ != 2 || verified_ != 2 || grace_ || !ran_elapsed_) return Next::kWait;
    const bool one_running =
        std::count_if(ends_.begin(), ends_.end(), [](const auto& e) { return !e; }) == 1;
    if (!one_running) return Next::kWait;
    grace_ = GraceWindowSeconds(configured_grace_, grace_floor_, *ran_elapsed_);
    return Next::kStartGrace;
  }
  // After the run's fate was decided, or once the candidate was cut, an end changes nothing; a
  // cancellation the run did not ask for is the run's own end (Finish).
  if (failure_ || cut || end.code() == kChildCancelled) return Next::kWait;
  if (quorum_ == 2 && IsSurvivableCandidateFailure(end)) {
    if (!missing_) {
      missing_ = MissingCandidate{slot, MissingCandidate::Reason::kFailed, end.code(), {}};
      first_lost_ = end;
      return Next::kWait;
    }
    // A second candidate lost: the quorum cannot be met. The first failure in time is the run's
    // error, as under fail fast.
    failure_ = Failure{*first_lost_, missing_->slot};
    missing_.reset();
    return Next::kStopOthers;
  }
  failure_ = Failure{end, slot};
  return Next::kStopOthers;
}

std::optional<double> CandidateQuorum::grace_seconds() const {
  std::lock_guard<std::mutex> lock(mu_);
  return grace_;
}

int CandidateQuorum::CutAfterGrace() {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_ || !grace_ || missing_) return 0;
  for (int slot = 1; slot <= 3; ++slot) {
    if (ends_[slot - 1]) continue;
    missing_ = MissingCandidate{slot, MissingCandidate::Reason::kCutAfterGrace, "", grace_};
    return slot;
  }
  return 0;
}

bool CandidateQuorum::Failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failure_.has_value();
}

CandidateQuorum::Outcome CandidateQuorum::Finish() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (failure_) return {failure_, std::nullopt};
  for (int slot = 1; slot <= 3; ++slot) {
    const std::optional<Status>& end = ends_[slot - 1];
    if (!end) {
      return {Failure{Status::Error(std::string(kOrchestrationFailed),
                                    "internal error: the candidate phase ended with candidate " +
                                        std::to_string(slot) + " still running"),
                      slot},
              std::nullopt};
    }
    // Only cancellations are left besides the missing candidate: the run's own.
    if (!end->ok() && !(missing_ && missing_->slot == slot)) return {Failure{*end, slot}, {}};
  }
  if (verified_ < quorum_) {
    return {Failure{Status::Error(std::string(kOrchestrationFailed),
                                  "internal error: fewer verified candidates than the quorum"),
                    missing_ ? missing_->slot : 1},
            std::nullopt};
  }
  return {std::nullopt, missing_};
}

}  // namespace pi_fusion::workflow
