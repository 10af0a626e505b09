#include "run/reviewer_phase.h"

#include <array>
#include <atomic>
#include <thread>

#include "process/cancel_relay.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {
namespace {

// A usable report, or the validation_reports_invalid status saying why the answer is not one.
// A fence recovery is audited before the report counts.
Status ReadReport(PreparedRun& run, const StageChild& child, const std::string& answer,
                  UsableReviewer* out) {
  workflow::ReportReading reading = workflow::ReadValidationReport(answer);
  if (!reading.ok()) {
    std::string message = "the review is not a valid " +
                          std::string(workflow::kValidationCandidateSchema) +
                          " report: " + reading.errors.front().Record();
    if (reading.errors.size() > 1) {
      message += " (and " + std::to_string(reading.errors.size() - 1) + " more)";
    }
    return Status::Error(std::string(kValidationReportsInvalid), message);
  }
  if (reading.fence_body) {
    const int slot = child.key.slot.value_or(0);
    Result<store::ArtifactRef> ref = run.store->WriteJsonArtifact(
        workflow::ContractEventArtifact(slot, child.key.attempt),
        workflow::ContractEvent(slot, child.key.attempt, answer, *reading.fence_body));
    if (!ref.ok()) return ref.status();
    out->fence_recovered = true;
  }
  out->report = std::move(*reading.report);
  return Status::Ok();
}

// A reviewer whose child answered but whose report is unusable: its attempt stays completed (the
// child did answer) and records why the report is not one, so no view and no resume counts it as
// a verified answer (store/resumability.h). A failure to record it only loses that note: the
// run's own outcome is decided by the tally either way.
void RecordUnusableReport(PreparedRun& run, const store::AttemptKey& key, const Status& why) {
  store::AttemptUpdate update;
  update.key = key;
  update.state = store::AttemptState::kCompleted;
  update.error = store::AttemptError{why.code(), why.message()};
  (void)run.store->RecordAttempt(update);
}

}  // namespace

ReviewerPhase RunReviewers(PreparedRun& run, const std::function<StageChild(int)>& child_for,
                           const ReviewerRunner& run_child, const process::CancelToken& cancel,
                           RunObserver& observer, const ReviewerResultCallback& on_result) {
  ReviewerPhase phase;
  std::array<process::CancelToken, 3> tokens;
  for (process::CancelToken& token : tokens) {
    Result<process::CancelToken> made = process::CancelToken::Create();
    if (!made.ok()) {
      phase.failure = workflow::ReviewerTally::Failure{made.status(), 1};
      return phase;
    }
    token = *made;
  }
  Result<std::unique_ptr<process::CancelRelay>> relay =
      process::CancelRelay::Start(cancel, {tokens.begin(), tokens.end()});
  if (!relay.ok()) {
    phase.failure = workflow::ReviewerTally::Failure{relay.status(), 1};
    return phase;
  }

  workflow::ReviewerTally tally;
  std::array<std::optional<UsableReviewer>, 3> usable;
  std::atomic<int> done{0};
  std::vector<std::thread> threads;
  for (int slot = 1; slot <= 3; ++slot) {
    threads.emplace_back([&, slot] {
      observer.Progress({ProgressEvent::kCandidateStarted, slot,
                         "candidate " + std::to_string(slot) + " starting"});
      const StageChild child = child_for(slot);
      StageResult result = run_child(child, tokens[slot - 1]);
      UsableReviewer reviewer{slot, {}, false};
      Status end = result.status;
      if (end.ok()) end = ReadReport(run, child, result.answer, &reviewer);
      if (result.status.ok() && !end.ok()) RecordUnusableReport(run, child.key, end);
      // The caller announces a reviewer as landed only once its report parsed.
      if (on_result) on_result(slot, result, end);
      if (end.ok()) {
        usable[slot - 1] = std::move(reviewer);
        observer.Progress({ProgressEvent::kCandidateDone, slot,
                           "candidates " + std::to_string(++done) + "/3 complete"});
      } else {
        observer.Progress({ProgressEvent::kCandidateFailed, slot,
                           "candidate " + std::to_string(slot) + " failed (" + end.code() + ")"});
      }
      if (tally.Record(slot, end) == workflow::ReviewerTally::Next::kCancelOthers) {
        for (const process::CancelToken& token : tokens) token.Cancel();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  phase.failure = tally.failure();
  phase.dropped = tally.dropped();
  for (std::optional<UsableReviewer>& u : usable) {
    if (u) phase.usable.push_back(std::move(*u));
  }
  return phase;
}

}  // namespace pi_fusion::run
