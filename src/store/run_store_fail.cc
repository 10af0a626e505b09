// RunStore::Fail: the ordered terminal-failure protocol (error.json, terminal manifest, one
// failure-summary attempt, summary binding).
#include "core/durable_file.h"
#include "core/utf8.h"
#include "store/constants.h"
#include "store/failure_summary.h"
#include "store/json_util.h"
#include "store/run_store.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

std::string SummaryNote(const Status& cause) {
  return TruncateUtf8(RepairUtf8("failure summary unavailable: " + cause.message()),
                      kSummaryNoteMaxBytes);
}

}  // namespace

Status RunStore::WriteErrorJsonLocked(const RunError& error, Manifest& next) {
  const json body = {{"run_id", run_id_},
                     {"workflow", next.workflow},
                     {"state", RunStateName(next.state)},
                     {"created_at", Now()},
                     {"error", RunErrorToJson(error)}};
  auto bytes = CanonicalBytes(body, kErrorFile);
  if (!bytes.ok()) return bytes.status();
  Status s = WriteFileDurably(fs_, PathOf(kErrorFile), bytes.value());
  if (!s.ok()) return s;
  next.artifacts[kErrorFile] = MakeRef(kErrorFile, bytes.value());
  return Status::Ok();
}

FailReport RunStore::Fail(RunState terminal, RunError error) {
  FailReport report;
  std::lock_guard lock(mu_);
  if (terminal != RunState::kFailed && terminal != RunState::kCancelled) {
    report.terminal = Status::Error(kStateTransitionInvalid, "Fail() needs failed or cancelled");
  } else {
    report.terminal = CheckTransition(manifest_.state, terminal);
  }
  if (!report.terminal.ok()) {
    report.summary = report.terminal;
    report.summary_note = SummaryNote(report.terminal);
    return report;
  }
  error.message = RepairUtf8(error.message);
  Manifest next = manifest_;
  next.state = terminal;
  next.error = error;
  // error.json first; its failure must not keep the run from becoming terminal.
  const Status error_json = WriteErrorJsonLocked(error, next);
  Manifest terminal_manifest = next;
  const Status manifest_written = PersistLocked(std::move(next));
  if (!manifest_written.ok()) manifest_ = std::move(terminal_manifest);  // over, durable or not
  report.terminal = !manifest_written.ok() ? manifest_written : error_json;
  WriteSummaryOnceLocked(report);
  return report;
}

void RunStore::WriteSummaryOnceLocked(FailReport& report) {
  auto fail = [&](const Status& cause) {
    report.summary = cause;
    report.summary_note = SummaryNote(cause);
  };
  // A fresh re-read, so the summary describes exactly what is durable.
  auto bytes = fs_.ReadFile(PathOf(kManifestFile), kManifestMaxBytes);
  if (!bytes.ok()) return fail(Status::Error(kArtifactError, bytes.status().message()));
  auto parsed = ParseJson(bytes.value(), kManifestFile);
  if (!parsed.ok()) return fail(parsed.status());
  auto durable = ManifestFromJson(parsed.value());
  if (!durable.ok()) return fail(durable.status());
  if (durable->state != manifest_.state) {
    return fail(Status::Error(kArtifactError, "the durable manifest is not terminal"));
  }
  auto summary = CanonicalBytes(BuildFailureSummary(durable.value(), Now()), kFailureSummaryFile);
  if (!summary.ok()) return fail(summary.status());
  Status s = WriteFileDurably(fs_, PathOf(kFailureSummaryFile), summary.value());
  if (!s.ok()) return fail(s);
  const ArtifactRef ref = MakeRef(kFailureSummaryFile, summary.value());
  Manifest next = manifest_;
  next.artifacts[kFailureSummaryFile] = ref;
  s = PersistLocked(std::move(next));
  if (!s.ok()) return fail(s);
  report.summary_ref = ref;
}

}  // namespace pi_fusion::store
