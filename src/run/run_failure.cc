#include "run/run_failure.h"

#include <utility>

#include "core/error_codes.h"
#include "run/cancel_cause.h"
#include "store/failure_summary.h"
#include "store/role_usage.h"

namespace pi_fusion::run {

using store::RunState;

Status InternalError(const std::string& what) {
  return Status::Error(std::string(kOrchestrationFailed), "internal error: " + what);
}

bool IsCancellation(const Status& status) { return status.code() == kChildCancelled; }

namespace {

// Before the terminal manifest: the documents of a stage that never began (its carry) are still
// evidence of the run, the warm children never used must be listed, and every child must be
// reaped with its exit recorded; the run fails already, so what the children did after their
// answers changes nothing but their records.
void SettleBeforeTerminal(RunContext& ctx) {
  if (!ctx.carry.files.empty()) {
    store::StoreBatch documents;
    documents.files = std::move(ctx.carry.files);
    (void)ctx.run.store->Apply(documents);
  }
  ctx.carry = {};
  ctx.warm.EndUnused();
  (void)ctx.run.exits->Settle(*ctx.run.store, *ctx.run.seams.fs);
}

}  // namespace

void RecordFailure(RunContext& ctx, const Status& status, std::optional<Stage> stage,
                   std::optional<int> slot, std::optional<int> attempt) {
  const bool cancelled = ctx.cancel.IsCancelled() || IsCancellation(status);
  const RunState terminal = cancelled ? RunState::kCancelled : RunState::kFailed;
  // A cancellation that named its cause records it as the message: the durable place every
  // later view reads it from (run/cancel_cause.h). A child's own "child cancelled" says less.
  const char* cause = cancelled ? ctx.cancel.cause() : nullptr;
  store::RunError error{cancelled ? std::string(kChildCancelled) : status.code(),
                        cause != nullptr ? CancelledByMessage(cause) : status.message(), stage,
                        slot, attempt};
  if (cause != nullptr) error.cancelled_by = cause;
  SettleBeforeTerminal(ctx);
  store::FailReport report = ctx.run.store->Fail(terminal, error);
  RunOutcome& outcome = ctx.outcome;
  outcome.end = cancelled ? RunEnd::kCancelled : RunEnd::kFailed;
  outcome.error = Status::Error(error.code, error.message);
  outcome.run_error = error;
  outcome.artifact_dir = ctx.run.store->run_dir();
  const store::Manifest terminal_manifest = ctx.run.store->Snapshot();
  outcome.usage = store::UsageToJson(terminal_manifest.usage);
  outcome.model_requests = store::RequestsJson(terminal_manifest);
  outcome.progress = store::FailureProgress(terminal_manifest);
  if (!report.terminal.ok()) outcome.summary_note = report.terminal.ToString();
  if (!report.summary.ok()) outcome.summary_note = report.summary_note;
  ctx.observer.Progress(
      cancelled ? ProgressUpdate{ProgressEvent::kCancelled, 0,
                                 "cancelled (" + (cause != nullptr ? cause : error.message) + ")"}
                : ProgressUpdate{ProgressEvent::kFailed, 0, "failed (" + error.code + ")"});
}

RunOutcome FailOutcome(RunContext& ctx, const Status& status, std::optional<Stage> stage) {
  RecordFailure(ctx, status, stage, std::nullopt, std::nullopt);
  return ctx.outcome;
}

Status Fail(RunContext& ctx, const Status& status, std::optional<Stage> stage,
            std::optional<int> slot, std::optional<int> attempt) {
  RecordFailure(ctx, status, stage, slot, attempt);
  return ctx.outcome.error;
}

RunOutcome FailAfterException(RunContext& ctx, const std::string& what) {
  try {
    if (!store::IsTerminal(ctx.run.store->Snapshot().state)) {
      return FailOutcome(ctx, InternalError(what), std::nullopt);
    }
  } catch (...) {
    // Recording the failure threw too: the run's thread must still return, with an outcome that
    // says the run failed even where its directory could not.
  }
  ctx.outcome.end = RunEnd::kFailed;
  ctx.outcome.error = InternalError(what);
  ctx.outcome.artifact_dir = ctx.run.store->run_dir();
  return ctx.outcome;
}

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

}  // namespace pi_fusion::run
