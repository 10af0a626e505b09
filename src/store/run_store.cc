#include "store/run_store.h"

#include <algorithm>
#include <array>

#include "core/durable_file.h"
#include "core/utf8.h"
#include "store/committed_result.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/owner_lock.h"
#include "store/run_id.h"
#include "store/run_paths.h"
#include "store/run_root.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 7> kReservedNames = {
    kManifestFile,       kMergedFile,     kResultFile,   kErrorFile,
    kFailureSummaryFile, kUsageClaimFile, kOwnerLockFile};

bool IsReserved(std::string_view name) {
  return std::find(kReservedNames.begin(), kReservedNames.end(), name) != kReservedNames.end();
}

Status Invalid(const std::string& message) {
  return Status::Error(kStateTransitionInvalid, message);
}

Status CheckSpec(const RunSpec& spec) {
  if (!IsValidRunId(spec.run_id)) return Status::Error(kArtifactError, "invalid run id");
  if (spec.resumed_from && !IsValidRunId(*spec.resumed_from)) {
    return Status::Error(kArtifactError, "invalid resumed_from run id");
  }
  if (spec.cwd.empty() || spec.cwd.front() != '/') {
    return Status::Error(kArtifactError, "cwd is not absolute: " + spec.cwd);
  }
  for (const json* j : {&spec.config, &spec.capabilities, &spec.context, &spec.tool_policy}) {
    if (!j->is_object()) return Status::Error(kArtifactError, "run spec policy is not an object");
  }
  return Status::Ok();
}

AttemptRecord* FindAttempt(Manifest& m, const AttemptKey& key) {
  for (auto& a : m.attempts) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

void RecomputeUsage(Manifest& m) {
  std::vector<Usage> usages;
  for (const auto& a : m.attempts) {
    if (a.usage) usages.push_back(*a.usage);
  }
  m.usage = SumUsage(usages);
}

// Applies `u` to `row`; the caller has checked that the row may change.
Status ApplyAttemptUpdate(const AttemptUpdate& u, const Manifest& m, AttemptRecord& row,
                          const std::string& now) {
  for (const auto& name : u.artifacts) {
    if (m.artifacts.count(name) == 0) {
      return Status::Error(kArtifactError, "attempt names an unwritten artifact " + name);
    }
    if (std::find(row.artifacts.begin(), row.artifacts.end(), name) == row.artifacts.end()) {
      row.artifacts.push_back(name);
    }
  }
  row.state = u.state;
  if (u.state != AttemptState::kRunning && !row.ended_at) row.ended_at = now;
  if (u.usage) row.usage = u.usage;
  if (u.requests) row.requests = u.requests;
  if (u.first_output_at && !row.first_output_at) row.first_output_at = u.first_output_at;
  if (u.error) row.error = AttemptError{u.error->code, RepairUtf8(u.error->message)};
  if (u.exit) row.exit = u.exit;
  if (u.reused_from) row.reused_from = u.reused_from;
  if (u.pooled && !row.pooled) row.pooled = u.pooled;
  return Status::Ok();
}

}  // namespace

RunStore::RunStore(FileSystem& fs, const Clock& clock, std::string run_dir,
                   std::unique_ptr<FileLock> owner_lock, Manifest manifest)
    : fs_(fs),
      clock_(clock),
      run_dir_(std::move(run_dir)),
      run_id_(manifest.run_id),
      owner_lock_(std::move(owner_lock)),
      manifest_(std::move(manifest)) {}

Result<std::unique_ptr<RunStore>> RunStore::Create(FileSystem& fs, const Clock& clock,
                                                   const RunSpec& spec) {
  Status s = CheckSpec(spec);
  if (!s.ok()) return s;
  const std::string run_dir = RunDirectory(spec.cwd, spec.session_id, spec.pid, spec.run_id);
  s = CreateDirectories(fs, spec.cwd);  // the project: normally there already
  if (!s.ok()) return s;
  Result<std::string> session_dir = CreateSessionDir(fs, spec.cwd, spec.session_id, spec.pid);
  if (!session_dir.ok()) return session_dir.status();
  // The run directory itself is always new: a random id that already exists means a bug.
  s = fs.CreateDir(run_dir, kPrivateDirMode);
  if (s.ok()) s = fs.SyncDir(DirName(run_dir));
  if (!s.ok()) return Status::Error(kArtifactError, "cannot create run directory: " + s.message());
  // Owned before the first manifest exists: a manifest whose lock is free has no live owner.
  auto owner_lock = AcquireOwnerLock(fs, run_dir);
  if (!owner_lock.ok()) return owner_lock.status();

  Manifest m;
  m.run_id = spec.run_id;
  m.workflow = std::string(RunIdWorkflow(spec.run_id));
  m.source = spec.source;
  m.created_at = m.updated_at = FormatTimestamp(clock.WallNow());
  m.cwd = spec.cwd;
  m.config = spec.config;
  m.models = spec.models;
  m.capabilities = spec.capabilities;
  m.context = spec.context;
  m.tool_policy = spec.tool_policy;
  m.resumed_from = spec.resumed_from;
  m.panel = spec.panel;
  std::unique_ptr<RunStore> store(
      new RunStore(fs, clock, run_dir, std::move(owner_lock).value(), m));
  std::lock_guard lock(store->mu_);
  s = store->PersistLocked(std::move(m));
  if (!s.ok()) return s;
  return store;
}

std::unique_ptr<RunStore> RunStore::Adopt(FileSystem& fs, const Clock& clock, std::string run_dir,
                                          Manifest manifest, std::unique_ptr<FileLock> owner_lock) {
  return std::unique_ptr<RunStore>(
      new RunStore(fs, clock, std::move(run_dir), std::move(owner_lock), std::move(manifest)));
}

std::string RunStore::Now() const { return FormatTimestamp(clock_.WallNow()); }

std::string RunStore::PathOf(std::string_view name) const { return ArtifactPath(run_dir_, name); }

Status RunStore::PersistLocked(Manifest next) {
  next.updated_at = Now();
  auto bytes = CanonicalBytes(ManifestToJson(next), kManifestFile);
  if (!bytes.ok()) return bytes.status();
  Status s = WriteFileDurably(fs_, PathOf(kManifestFile), bytes.value());
  if (!s.ok()) return s;
  manifest_ = std::move(next);
  return Status::Ok();
}

Status RunStore::RefuseIfTerminalLocked() const {
  if (!IsTerminal(manifest_.state)) return Status::Ok();
  return Invalid("run " + run_id_ + " is " + std::string(RunStateName(manifest_.state)) +
                 "; its manifest is final");
}

Result<ArtifactRef> RunStore::WriteArtifact(std::string_view name, std::string_view bytes) {
  StoreBatch batch;
  batch.files.push_back({std::string(name), std::string(bytes)});
  if (Status s = Apply(batch); !s.ok()) return s;
  return MakeRef(name, bytes);
}

Status RunStore::Apply(const StoreBatch& batch) {
  std::vector<DurableFile> files;
  for (const StoreBatch::File& file : batch.files) {
    Status s = ValidateArtifactName(file.name);
    if (!s.ok()) return s;
    if (IsReserved(file.name)) {
      return Status::Error(kArtifactError, file.name + " is written only by the run store");
    }
    files.push_back({PathOf(file.name), file.bytes});
  }
  if (batch.attempt) {
    if (Status s = ValidateAttemptKey(batch.attempt->key); !s.ok()) return s;
  }
  for (RunState to : batch.transitions) {
    if (to == RunState::kFailed || to == RunState::kCancelled || to == RunState::kCompleted) {
      return Invalid("a batch cannot end the run");
    }
  }
  {
    std::lock_guard lock(mu_);
    if (Status s = RefuseIfTerminalLocked(); !s.ok()) return s;
  }
  // The bytes are written outside the lock, so large evidence files of different attempts are
  // written in parallel.
  if (Status s = WriteFilesDurably(fs_, files); !s.ok()) return s;
  std::lock_guard lock(mu_);
  // The run may have ended while the bytes were written; the files then stay unreferenced.
  if (Status s = RefuseIfTerminalLocked(); !s.ok()) return s;
  Manifest next = manifest_;
  for (const StoreBatch::File& file : batch.files) {
    ArtifactRef ref = MakeRef(file.name, file.bytes);
    next.artifacts[ref.path] = ref;
  }
  if (batch.attempt) {
    if (Status s = ApplyAttemptLocked(*batch.attempt, next); !s.ok()) return s;
  }
  for (RunState to : batch.transitions) {
    if (Status s = CheckTransition(next.state, to); !s.ok()) return s;
    next.state = to;
  }
  return PersistLocked(std::move(next));
}

Result<ArtifactRef> RunStore::WriteJsonArtifact(std::string_view name, const json& value) {
  auto bytes = CanonicalBytes(value, name);
  if (!bytes.ok()) return bytes.status();
  return WriteArtifact(name, bytes.value());
}

Status RunStore::RecordAttempt(const AttemptUpdate& update) {
  Status s = ValidateAttemptKey(update.key);
  if (!s.ok()) return s;
  std::lock_guard lock(mu_);
  if (s = RefuseIfTerminalLocked(); !s.ok()) return s;
  Manifest next = manifest_;
  if (s = ApplyAttemptLocked(update, next); !s.ok()) return s;
  return PersistLocked(std::move(next));
}

Status RunStore::ApplyAttemptLocked(const AttemptUpdate& update, Manifest& next) const {
  AttemptRecord* row = FindAttempt(next, update.key);
  if (row == nullptr) {
    next.attempts.push_back(AttemptRecord{update.key, AttemptState::kRunning, Now()});
    row = &next.attempts.back();
  } else if (row->state != AttemptState::kRunning && row->state != update.state) {
    return Invalid("attempt " + AttemptPrefix(update.key) + " is already " +
                   std::string(AttemptStateName(row->state)));
  }
  if (Status s = ApplyAttemptUpdate(update, next, *row, Now()); !s.ok()) return s;
  RecomputeUsage(next);
  return Status::Ok();
}

Status RunStore::AddAttemptUsage(const AttemptKey& key, const Usage& usage) {
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  Manifest next = manifest_;
  AttemptRecord* row = FindAttempt(next, key);
  if (row == nullptr) {
    return Status::Error(kArtifactError, "no attempt " + AttemptPrefix(key) + " to add usage to");
  }
  row->usage = row->usage ? SumUsage({*row->usage, usage}) : usage;
  RecomputeUsage(next);
  return PersistLocked(std::move(next));
}

Status RunStore::RecordWarmChild(Stage stage, WarmChildOutcome outcome, std::string started_at,
                                 std::string note) {
  if (stage == Stage::kCandidate || !IsTimestamp(started_at)) {
    return Invalid("a warm child record needs the evaluation or merge stage and a start time");
  }
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  Manifest next = manifest_;
  next.warm_children.push_back({stage, outcome, std::move(started_at), Now(), RepairUtf8(note)});
  return PersistLocked(std::move(next));
}

Status RunStore::RecordDroppedReviewer(int slot, std::string code, std::string message) {
  if (slot < 1 || slot > 3 || code.empty()) {
    return Invalid("a dropped reviewer record needs a slot 1-3 and a code");
  }
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  Manifest next = manifest_;
  next.dropped_reviewers.push_back({slot, std::move(code), RepairUtf8(message)});
  return PersistLocked(std::move(next));
}

Status RunStore::RecordWalkProtection(const std::string& protection) {
  if (!IsWalkProtection(protection)) return Invalid("an unknown walk protection " + protection);
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  if (manifest_.walk_protection == protection) return Status::Ok();
  Manifest next = manifest_;
  next.walk_protection = protection;
  return PersistLocked(std::move(next));
}

Status RunStore::RecordJudgment(const nlohmann::json& citations, const nlohmann::json& agreement,
                                const nlohmann::json& order_check) {
  if (!citations.is_null() && !IsCitationsRecord(citations)) {
    return Invalid("a malformed citation check record");
  }
  if (!agreement.is_null() && !IsAgreementRecord(agreement)) {
    return Invalid("a malformed agreement record");
  }
  if (!order_check.is_null() && !IsOrderCheckRecord(order_check)) {
    return Invalid("a malformed order check record");
  }
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  Manifest next = manifest_;
  next.citations = citations;
  next.agreement = agreement;
  next.order_check = order_check;
  return PersistLocked(std::move(next));
}

Status RunStore::RecordDegraded(DegradedRecord degraded) {
  degraded.model = RepairUtf8(degraded.model);
  if (Result<DegradedRecord> checked = DegradedFromJson(DegradedToJson(degraded), "degraded");
      !checked.ok()) {
    return Invalid("a degraded record " + checked.status().message());
  }
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  if (manifest_.degraded) return Invalid("the degraded record is already recorded");
  Manifest next = manifest_;
  next.degraded = std::move(degraded);
  return PersistLocked(std::move(next));
}

Status RunStore::RecordAdaptive(AdaptiveRecord adaptive) {
  for (std::string& d : adaptive.differences) d = RepairUtf8(d);
  if (Result<AdaptiveRecord> checked = AdaptiveFromJson(AdaptiveToJson(adaptive), "adaptive");
      !checked.ok()) {
    return Invalid("an adaptive record " + checked.status().message());
  }
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  if (manifest_.adaptive) return Invalid("the adaptive record is already recorded");
  Manifest next = manifest_;
  next.adaptive = std::move(adaptive);
  return PersistLocked(std::move(next));
}

Status RunStore::SetAnonymousMap(const json& map) {
  if (!map.is_object()) return Status::Error(kArtifactError, "anonymous map is not an object");
  std::lock_guard lock(mu_);
  Status s = RefuseIfTerminalLocked();
  if (!s.ok()) return s;
  if (!manifest_.anonymous_map.is_null()) return Invalid("the anonymous map is already recorded");
  Manifest next = manifest_;
  next.anonymous_map = map;
  return PersistLocked(std::move(next));
}

Status RunStore::CheckCommittedLocked(const Manifest& next) const {
  const auto merged = next.artifacts.find(kMergedFile);
  const auto result = next.artifacts.find(kResultFile);
  if (merged == next.artifacts.end() || result == next.artifacts.end()) {
    return Invalid("completed needs merged.md and result.json to be recorded first");
  }
  auto bytes = VerifyArtifact(fs_, run_dir_, result->second);
  if (!bytes.ok()) return bytes.status();
  auto parsed = ParseJson(bytes.value(), kResultFile);
  if (!parsed.ok()) return parsed.status();
  return CheckCommittedResult(parsed.value(), run_id_, next.workflow, merged->second);
}

Status RunStore::Transition(RunState to) {
  if (to == RunState::kFailed || to == RunState::kCancelled) {
    return Invalid("failed and cancelled are entered through Fail()");
  }
  std::lock_guard lock(mu_);
  Status s = CheckTransition(manifest_.state, to);
  if (!s.ok()) return s;
  if (to == RunState::kCompleted) {
    if (s = CheckCommittedLocked(manifest_); !s.ok()) return s;
  }
  Manifest next = manifest_;
  next.state = to;
  return PersistLocked(std::move(next));
}

Result<CommittedRefs> RunStore::CommitResult(std::string_view merged_markdown, json details) {
  if (!IsValidUtf8(merged_markdown)) {
    return Status::Error(kArtifactError, "merged.md is not valid UTF-8");
  }
  auto stamped = StampResultDetails(std::move(details));
  if (!stamped.ok()) return stamped.status();
  std::lock_guard lock(mu_);
  Status s = CheckTransition(manifest_.state, RunState::kCompleted);
  if (!s.ok()) return s;
  CommittedRefs refs;
  refs.merged = MakeRef(kMergedFile, merged_markdown);
  auto result_bytes =
      CanonicalBytes(CommittedResultToJson(run_id_, refs.merged, stamped.value()), kResultFile);
  if (!result_bytes.ok()) return result_bytes.status();
  refs.result = MakeRef(kResultFile, result_bytes.value());
  const std::array<DurableFile, 2> files = {DurableFile{PathOf(kMergedFile), merged_markdown},
                                            DurableFile{PathOf(kResultFile), *result_bytes}};
  if (s = WriteFilesDurably(fs_, files); !s.ok()) return s;
  Manifest next = manifest_;
  next.artifacts[kMergedFile] = refs.merged;
  next.artifacts[kResultFile] = refs.result;
  next.state = RunState::kCompleted;
  if (s = CheckCommittedLocked(next); !s.ok()) return s;
  if (s = PersistLocked(std::move(next)); !s.ok()) return s;
  return refs;
}

Manifest RunStore::Snapshot() const {
  std::lock_guard lock(mu_);
  return manifest_;
}

}  // namespace pi_fusion::store
