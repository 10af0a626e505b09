#include "run/child_exits.h"

#include <utility>

#include "core/error_codes.h"
#include "protocol/stderr_scan.h"
#include "protocol/verify.h"
#include "store/artifact_ref.h"
#include "store/attempt_files.h"
#include "store/run_store.h"
#include "store/wall_clock.h"

namespace pi_fusion::run {
namespace {

Status Late(const Status& status) {
  return Status::Error(status.code(), "after its verified answer: " + status.message());
}

// What the child did after its answer, judged on everything it wrote and how it ended.
Status JudgeAfterAnswer(const AnsweredChild& child, const process::ChildOutcome& end) {
  if (!end.cleanup_errors.empty()) return Late(process::OutcomeStatus(end));
  // Stopped by us after the answer (it lingered, or the run was cancelled): its exit is ours.
  // Any other stop (an output cap) is the child's failure.
  const bool stopped = end.stop_reason != process::StopReason::kNone;
  const bool ours =
      end.stopped_after_answer && (end.stop_reason == process::StopReason::kAfterAnswer ||
                                   end.stop_reason == process::StopReason::kCancelled);
  if (stopped && !ours) return Late(end.status);
  protocol::ChildExit exit{end.exit_code, end.term_signal};
  if (stopped) exit = protocol::ChildExit{0, std::nullopt};
  protocol::VerifyRequest verify{end.stdout_bytes, end.stderr_bytes, exit,
                                 child.provider,   child.model,      child.oversized_original};
  const protocol::ChildReport report = protocol::VerifyChildRun(verify);
  if (!report.ok()) return Late(report.status);
  if (report.answer != child.answer) {
    return Late(Status::Error(kChildEventInvalid,
                              "its stdout changed after the answer the stage moved on with"));
  }
  return Status::Ok();
}

// The audit log and seal the stage bound at the answer, read again now that the child ended.
Status CheckAuditUnchanged(const AnsweredChild& child, const store::Manifest& manifest,
                           FileSystem& fs, const std::string& run_dir) {
  for (const std::string& name : child.audit_artifacts) {
    const auto ref = manifest.artifacts.find(name);
    Result<std::string> bytes =
        ref == manifest.artifacts.end()
            ? Result<std::string>(Status::Error(kArtifactError, name + ": not bound"))
            : store::VerifyArtifact(fs, run_dir, ref->second);
    if (!bytes.ok()) {
      return Late(Status::Error(
          kToolAuditInvalid,
          "its tool-call audit log changed after the answer the stage moved on with: " +
              bytes.status().message()));
    }
  }
  return Status::Ok();
}

}  // namespace

store::ChildExitRecord ExitRecordOf(const process::ChildOutcome& outcome, bool after_answer) {
  return {outcome.exit_code, outcome.term_signal, process::StopReasonName(outcome.stop_reason),
          after_answer, store::FormatTimestamp(outcome.ended_at)};
}

std::optional<std::string> FirstOutputAtOf(const process::ChildOutcome& outcome) {
  if (!outcome.first_output_at) return std::nullopt;
  // The offset is on the supervisor's steady clock from the spawn; started_at is the spawn's wall
  // time, so the sum stays right even if the wall clock is stepped meanwhile.
  return store::FormatTimestamp(outcome.started_at + *outcome.first_output_at);
}

std::optional<store::PooledRecord> PooledRecordOf(const process::ChildOutcome& outcome) {
  if (!outcome.pooled) return std::nullopt;
  return store::PooledRecord{outcome.pooled->task,
                             store::FormatTimestamp(outcome.pooled->process_started_at)};
}

ChildExits::~ChildExits() {
  for (AnsweredChild& child : children_) (void)child.job->WaitForEnd();
}

void ChildExits::Add(AnsweredChild child) {
  std::lock_guard lock(mu_);
  children_.push_back(std::move(child));
}

std::optional<LateFailure> ChildExits::Settle(store::RunStore& store, FileSystem& fs) {
  std::vector<AnsweredChild> children;
  {
    std::lock_guard lock(mu_);
    children.swap(children_);
  }
  std::optional<LateFailure> first;
  for (AnsweredChild& child : children) {
    Result<process::ChildOutcome> end = child.job->WaitForEnd();
    Status late = end.ok() ? JudgeAfterAnswer(child, *end) : Late(end.status());
    if (late.ok()) late = CheckAuditUnchanged(child, store.Snapshot(), fs, store.run_dir());
    if (end.ok()) {
      // The child's whole stderr, which the stage did not wait for, bound with its exit.
      store::StoreBatch batch;
      batch.files = {
          {store::AttemptFileName(child.key, store::AttemptFile::kStderr), end->stderr_bytes},
          {store::AttemptFileName(child.key, store::AttemptFile::kEvents),
           protocol::FramesJsonl(end->stderr_bytes)}};
      store::AttemptUpdate update;
      update.key = child.key;
      update.state = store::AttemptState::kCompleted;
      update.exit = ExitRecordOf(*end, /*after_answer=*/true);
      update.first_output_at = FirstOutputAtOf(*end);  // kept when the answer already set it
      update.artifacts = {batch.files[0].name, batch.files[1].name};
      // The attempt stays completed (the run moved on with its answer), and says why that answer
      // is no evidence to reuse: a resume asks its stage again (store/resumability.h).
      if (!late.ok()) update.error = store::AttemptError{late.code(), late.message()};
      batch.attempt = std::move(update);
      Status recorded = store.Apply(batch);
      if (late.ok()) late = recorded;
    }
    if (!late.ok() && !first) first = LateFailure{late, child.key};
  }
  return first;
}

}  // namespace pi_fusion::run
