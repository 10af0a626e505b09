// RunStore: owns one run directory and its manifest for the lifetime of a run.
//
// Every change is durable before it is visible: artifacts are written with WriteFileDurably, and
// every manifest update writes the whole manifest durably; the in-memory manifest only takes the
// new value once that write succeeded, so a failed write leaves memory and disk agreeing on the
// previous state (Fail() is the exception, see there).
//
// Lifecycle:
//   Create()            directories (0700; run_root.h: never through a symlink, and the root
//                       ignored by git), owner.lock (held while the store lives, see
//                       owner_lock.h), manifest.json in `initializing`
//   WriteArtifact()     evidence files (0600), each ref recorded in the manifest
//   Apply()             several of these changes (files, an attempt, transitions) in one
//                       manifest write: a stage boundary (StoreBatch)
//   RecordAttempt()     one row per child attempt; run usage is the attempts' sum
//   Transition()        along the state machine of run_state.h
//   CommitResult()      merged.md, result.json, manifest `completed`
//   Fail()              error.json, terminal manifest, one failure-summary.json attempt
// After a terminal state every mutating call is refused with state_transition_invalid: the
// terminal manifest is what the failure summary and bg_result bind.
//
// Reserved names (written only by the calls above): manifest.json, merged.md, result.json,
// error.json, failure-summary.json, usage-claim.json, owner.lock.
//
// Thread-safety: all methods are safe to call concurrently (candidate attempts finish on different
// threads). One mutex serializes manifest updates; WriteArtifact writes the artifact's bytes
// outside it, so large evidence files of different attempts are written in parallel.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/artifact_ref.h"
#include "store/manifest.h"
#include "store/wall_clock.h"

namespace pi_fusion::store {

// What preflight knows when the run is created.
struct RunSpec {
  std::string run_id;  // REQUIRES: IsValidRunId; its prefix is the workflow
  RunSource source = RunSource::kTool;
  std::string cwd;         // REQUIRES: absolute; the run lives under <cwd>/.pi/fusion/
  std::string session_id;  // sanitized into the directory name (run_paths.h)
  long pid = 0;            // the Pi process id, part of the session directory name
  nlohmann::json config = nlohmann::json::object();  // REQUIRES: an object
  RunModels models;
  nlohmann::json capabilities = nlohmann::json::object();  // REQUIRES: an object
  nlohmann::json context = nlohmann::json::object();       // REQUIRES: an object
  nlohmann::json tool_policy = nlohmann::json::object();   // REQUIRES: an object
  std::optional<std::string> resumed_from;                 // REQUIRES: a valid run id when set
  std::optional<std::string> panel;                        // the named panel the run uses
};

// A change to one attempt row. The row is created on first sight of its key (started_at = now);
// ended_at is set when its state first leaves kRunning. A finished attempt's state is final.
struct AttemptUpdate {
  AttemptKey key;
  AttemptState state = AttemptState::kRunning;
  std::optional<Usage> usage;           // replaces the row's usage when set
  std::optional<AttemptError> error;    // replaces the row's error when set
  std::vector<std::string> artifacts;   // appended once each; REQUIRES: already written
  std::optional<ChildExitRecord> exit;  // replaces the row's exit when set
  std::optional<uint64_t> requests;     // replaces the row's request count when set
  // Set once: a later update keeps the first.
  std::optional<std::string> first_output_at;
  // A reused attempt (manifest.h, AttemptRecord::reused_from): set once, with its final state.
  std::optional<std::string> reused_from;
  // The pooled process that ran the child (manifest.h, AttemptRecord::pooled): set once.
  std::optional<PooledRecord> pooled;
};

// Artifacts and manifest changes made durable together (RunStore::Apply): every file, then ONE
// manifest write recording their refs, the attempt update and the transitions. A run's stage
// boundary is a handful of such changes; made one by one, each cost a directory fsync and a
// manifest write of its own, on the path from one child's answer to the next child's input.
struct StoreBatch {
  struct File {
    std::string name;
    std::string bytes;
  };
  std::vector<File> files;               // same rules as WriteArtifact's names
  std::optional<AttemptUpdate> attempt;  // may list `files` among its artifacts
  std::vector<RunState> transitions;     // applied in order, as Transition() would
                                         // (never failed, cancelled or completed)

  bool empty() const { return files.empty() && !attempt && transitions.empty(); }
};

struct CommittedRefs {
  ArtifactRef merged;  // merged.md
  ArtifactRef result;  // result.json
};

// What Fail() achieved. The terminal state is published even when the summary is not.
struct FailReport {
  Status terminal;  // ok when error.json and the terminal manifest are durable
  Status summary;   // ok when failure-summary.json is written and bound by the manifest
  std::optional<ArtifactRef> summary_ref;
  // When !summary.ok(): one bounded (kSummaryNoteMaxBytes) summary-unavailable note for the
  // failure channel; empty otherwise.
  std::string summary_note;
};

class RunStore {
 public:
  // Creates <cwd>/.pi/fusion/<session>-<pid>/<run-id>/ (every directory it creates mode 0700;
  // the run directory itself must not exist yet) and writes the initial manifest.
  // REQUIRES: `fs` and `clock` outlive the store.
  static Result<std::unique_ptr<RunStore>> Create(FileSystem& fs, const Clock& clock,
                                                  const RunSpec& spec);

  // Takes over an existing run whose owner is gone (abandoned_run.h): `manifest` is its durable
  // manifest and `owner_lock` the owner lock this process now holds.
  static std::unique_ptr<RunStore> Adopt(FileSystem& fs, const Clock& clock, std::string run_dir,
                                         Manifest manifest, std::unique_ptr<FileLock> owner_lock);

  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  const std::string& run_dir() const { return run_dir_; }
  const std::string& run_id() const { return run_id_; }

  // Writes `bytes` durably as `name` (mode 0600) and records its ref. Rewriting a name replaces
  // its ref. Refused for reserved and invalid names, and after a terminal state.
  Result<ArtifactRef> WriteArtifact(std::string_view name, std::string_view bytes);
  // WriteArtifact of CanonicalJson(value).
  Result<ArtifactRef> WriteJsonArtifact(std::string_view name, const nlohmann::json& value);

  Status RecordAttempt(const AttemptUpdate& update);
  // Writes and records `batch` (StoreBatch above). All or nothing in the manifest: when a check
  // or a write fails, the manifest keeps its previous state (files already written then stay
  // unreferenced).
  Status Apply(const StoreBatch& batch);
  // Adds `usage` to an existing attempt (a second provider turn of the same child, such as the
  // same-session compression of an oversized candidate) and to the run total.
  Status AddAttemptUsage(const AttemptKey& key, const Usage& usage);
  // Lists a warm child that never became an attempt (manifest.h, WarmChildRecord); ended_at is
  // stamped now. REQUIRES: started_at is an RFC 3339 time; stage is evaluation or merge.
  Status RecordWarmChild(Stage stage, WarmChildOutcome outcome, std::string started_at,
                         std::string note);
  // Lists a validate reviewer dropped under the minority rule (manifest.h, DroppedReviewerRecord).
  // REQUIRES: slot in 1..3, a non-empty code.
  Status RecordDroppedReviewer(int slot, std::string code, std::string message);
  // Records the candidate a quorum-2 run goes on without (manifest.h, DegradedRecord), once.
  // REQUIRES: a record DegradedFromJson accepts.
  Status RecordDegraded(DegradedRecord degraded);
  // Records an adaptive run's decision (manifest.h, AdaptiveRecord), once.
  Status RecordAdaptive(AdaptiveRecord adaptive);
  // Records (or replaces) the weakest walk protection of the run's candidates (Manifest::
  // walk_protection). REQUIRES: IsWalkProtection(protection).
  Status RecordWalkProtection(const std::string& protection);
  // Records the citation check and the panel's agreement of a run about to complete
  // (Manifest::citations, agreement; null leaves a key out). kArtifactError unless each that is
  // not null is such a record (IsCitationsRecord, IsAgreementRecord).
  // `order_check` likewise (Manifest::order_check).
  Status RecordJudgment(const nlohmann::json& citations, const nlohmann::json& agreement,
                        const nlohmann::json& order_check = nullptr);
  // Records the A/B/C map once. REQUIRES: an object.
  Status SetAnonymousMap(const nlohmann::json& map);

  // Moves along the forward path (run_state.h). `completed` is refused until merged.md and
  // result.json refs are recorded and result.json binds merged.md's ref; failed and cancelled
  // are entered only through Fail().
  Status Transition(RunState to);

  // REQUIRES: state merging. Writes merged.md (valid UTF-8), then result.json wrapping `details`
  // (stamped with the fusion-result.v6 schema id), then the manifest `completed` binding both.
  Result<CommittedRefs> CommitResult(std::string_view merged_markdown, nlohmann::json details);

  // REQUIRES: `terminal` is failed or cancelled, and the run is not terminal yet (otherwise
  // nothing is written and report.terminal is state_transition_invalid).
  // Writes error.json, then the terminal manifest, then makes exactly one attempt at
  // failure-summary.json built from a fresh re-read of the terminal manifest, and finally binds
  // the summary's ref in the manifest. A failure of error.json does not stop the terminal
  // manifest; a failure of the summary does not undo the terminal state. Even when the terminal
  // manifest cannot be written the store stays terminal in memory: the run is over either way.
  FailReport Fail(RunState terminal, RunError error);

  // A copy of the current manifest.
  Manifest Snapshot() const;

 private:
  RunStore(FileSystem& fs, const Clock& clock, std::string run_dir,
           std::unique_ptr<FileLock> owner_lock, Manifest manifest);

  std::string Now() const;
  std::string PathOf(std::string_view name) const;
  // Applies an attempt update to `next`. REQUIRES: mu_ held.
  Status ApplyAttemptLocked(const AttemptUpdate& update, Manifest& next) const;
  // Durably writes `next` as the manifest and adopts it. REQUIRES: mu_ held.
  Status PersistLocked(Manifest next);
  Status RefuseIfTerminalLocked() const;
  // The completed-state precondition, checked against the files on disk.
  Status CheckCommittedLocked(const Manifest& next) const;
  Status WriteErrorJsonLocked(const RunError& error, Manifest& next);
  void WriteSummaryOnceLocked(FailReport& report);

  FileSystem& fs_;
  const Clock& clock_;
  const std::string run_dir_;
  const std::string run_id_;
  // Held for the store's whole life: the run's owner-liveness lock (owner_lock.h).
  const std::unique_ptr<FileLock> owner_lock_;

  mutable std::mutex mu_;
  Manifest manifest_;  // guarded by mu_
};

}  // namespace pi_fusion::store
