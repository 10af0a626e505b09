// The run manifest (`manifest.json`, schema pi-background-tasks.fusion-manifest.v5) as a value,
// and its exact JSON form. Schema file: schemas/artifacts/fusion-manifest.v5.json.
//
// The manifest is the run's index: identity, launch facts, resolved models, policies, every child
// attempt with its usage and error, cumulative usage, the refs of every artifact written, the
// A/B/C anonymous map and the terminal error. `config`, `capabilities`, `context` and
// `tool_policy` are objects owned by the layers that produce them; the store records them
// verbatim.
//
// Values and pure functions; thread-compatible.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "store/artifact_ref.h"
#include "store/run_state.h"
#include "store/usage.h"

namespace pi_fusion::store {

// A resolved route: Pi's provider name and model id.
struct ModelSelection {
  std::string provider;
  std::string model;

  // "provider/model", as every view and record names a route.
  std::string QualifiedId() const { return provider + "/" + model; }

  bool operator==(const ModelSelection&) const = default;
};

// The thinking level each role's children ran at, when a panel set one (config/panels.h).
struct RoleThinkingLevels {
  std::string candidates;
  std::string evaluator;  // also the evaluator's repair
  std::string merger;

  bool operator==(const RoleThinkingLevels&) const = default;
};

struct RunModels {
  std::array<ModelSelection, 3> candidates;
  ModelSelection evaluator;
  ModelSelection merger;
  std::string thinking_level;  // the parent's level, used by every child of a role without its own
  // Optional in the JSON form (`thinking`): the levels per role, written only when one differs
  // from thinking_level (a panel set it). nullopt: every child ran at thinking_level.
  std::optional<RoleThinkingLevels> role_thinking;

  // The level `role`'s children ran at (the repair's is the evaluator's).
  const std::string& ThinkingOf(Role role) const;

  bool operator==(const RunModels&) const = default;
};

// Which child an attempt is. Candidates have slot 1..3; evaluation and merge have no slot.
// Attempts count from 1 (evaluation attempt 2 is the repair child).
struct AttemptKey {
  Stage stage = Stage::kCandidate;
  std::optional<int> slot;
  int attempt = 1;

  bool operator==(const AttemptKey&) const = default;
};

// ok, or kArtifactError when the slot does not fit the stage or the attempt is < 1.
Status ValidateAttemptKey(const AttemptKey& key);
// The artifact name prefix of an attempt: "candidate-2.attempt-1", "evaluation.attempt-2",
// "merge.attempt-1" (CONTRACTS.md "Artifacts").
// REQUIRES: ValidateAttemptKey(key).ok()
std::string AttemptPrefix(const AttemptKey& key);

struct AttemptError {
  std::string code;     // one of the spec's error codes
  std::string message;  // a host-written diagnostic, never response text

  bool operator==(const AttemptError&) const = default;
};

// How an attempt's child process ended. A stage moves on at its child's verified answer, so this
// may be recorded after the attempt completed (docs/architecture-process.md, "Ending at the
// answer"); every child that ran has it before the run's terminal manifest.
struct ChildExitRecord {
  std::optional<int> code;    // the exit code, when it exited
  std::optional<int> signal;  // the signal that ended it; neither when it could not be reaped
  // "none" when it ended by itself; otherwise why the supervisor stopped it ("after_answer",
  // "cancelled", "wall_limit", …: process::StopReasonName).
  std::string stop_reason = "none";
  bool after_answer = false;  // the stage moved on at its answer, before this exit
  // RFC 3339: when the supervisor saw the process end (reaped, or given up on). It differs from
  // the attempt's ended_at when the stage moved on at the answer. Optional in the JSON form
  // (`exited_at`): absent in manifests written before the field.
  std::optional<std::string> exited_at;

  bool operator==(const ChildExitRecord&) const = default;
};

// The pooled process that ran an attempt's child (policy.keep_warm_seconds): which of its tasks
// the attempt was (1 = the process's first) and when the process started (RFC 3339).
struct PooledRecord {
  int64_t task = 1;
  std::string process_started_at;

  bool operator==(const PooledRecord&) const = default;
};

struct AttemptRecord {
  AttemptKey key;
  AttemptState state = AttemptState::kRunning;
  std::string started_at;               // RFC 3339, set by the store
  std::optional<std::string> ended_at;  // set when the state leaves kRunning
  std::optional<Usage> usage;           // absent until the child reported usage
  std::optional<AttemptError> error;
  std::vector<std::string> artifacts;  // names in Manifest::artifacts
  // RFC 3339: when the parent first read the child's output — its first progress frame (its
  // model's first stream event or first tool start), a metadata frame or answer text
  // (protocol::HoldsFirstOutput). Optional in the JSON form (`first_output_at`): absent when the
  // child wrote none, when no child ran, and in manifests written before the field.
  std::optional<std::string> first_output_at;
  // Optional in the JSON form (`exit`): absent when no child process ran, or not yet reaped.
  std::optional<ChildExitRecord> exit;
  // Model requests the child sent: its usage records (one per assistant message) that followed a
  // request the child's governor let through, failed ones included (docs/protocol.md, "Model
  // requests"). Optional in the JSON form (`requests`): absent until the child was judged, when
  // no child ran, and in manifests written before the field.
  std::optional<uint64_t> requests;
  // A resumed run's attempt whose verified files were copied from an earlier run (its id): no
  // child ran in this run, so it has no usage, requests or exit of its own. Optional in the JSON
  // form (`reused_from`): absent for every attempt a child of this run made.
  std::optional<std::string> reused_from;
  // Optional in the JSON form (`pooled`): absent for every attempt whose child started cold or
  // warm for its run.
  std::optional<PooledRecord> pooled;

  bool operator==(const AttemptRecord&) const = default;
};

// A stage child started ahead of its input (a warm evaluator or merger) that never became an
// attempt: `unused` when the run ended before its stage began, `replaced` when it ended before its
// input and a cold child took its place. A warm child that got its input is simply attempt 1 of
// its stage and appears only in `attempts`.
enum class WarmChildOutcome { kUnused, kReplaced };

struct WarmChildRecord {
  Stage stage = Stage::kEvaluation;  // evaluation or merge
  WarmChildOutcome outcome = WarmChildOutcome::kUnused;
  std::string started_at;  // RFC 3339: when it was spawned
  std::string ended_at;    // RFC 3339: when it was found ended or was stopped
  std::string note;        // how it ended, host-written ("stopped before its input")

  bool operator==(const WarmChildRecord&) const = default;
};

const char* WarmChildOutcomeName(WarmChildOutcome outcome);

// A validate reviewer left out under the minority rule: the run went on with the other two.
// Recorded in the manifest so the run says so in its own record, not only in the report's prose.
struct DroppedReviewerRecord {
  int slot = 0;         // 1..3
  std::string code;     // why: the child's failure code, or validation_reports_invalid
  std::string message;  // a host-written diagnostic (UTF-8 repaired), never response text

  bool operator==(const DroppedReviewerRecord&) const = default;
};

// A quorum-2 run that went on from two verified candidates (workflow/candidate_quorum.h): the
// candidate it answered without. Recorded before the evaluation starts, so a run that failed
// later still says which candidate it had already left out.
struct DegradedRecord {
  int slot = 0;                         // 1..3
  std::string model;                    // "provider/model" of that candidate's route
  std::string reason;                   // "failed" | "cut_after_grace"
  std::optional<std::string> code;      // failed: the child's error code; null when cut
  std::optional<double> grace_seconds;  // cut_after_grace: the grace window; null when failed

  bool operator==(const DegradedRecord&) const = default;
};

// {"slot","model","reason","code","grace_seconds"} (null for an unset code or grace).
nlohmann::json DegradedToJson(const DegradedRecord& degraded);
// Strict parse of that object; kArtifactError "<where> …" otherwise.
Result<DegradedRecord> DegradedFromJson(const nlohmann::json& value, const std::string& where);

// An adaptive run's decision (fusion-models.json `policy.panel: "adaptive"`,
// workflow/agreement_check.h): whether candidates 1 and 2 agreed, so the third was not asked.
// Recorded before the evaluation starts (and before the third candidate runs when they did not).
struct AdaptiveRecord {
  bool agree = false;
  std::string decided_by;                // "identical" (no check ran) | "check"
  std::vector<std::string> differences;  // the check's; empty when they agreed
  std::optional<double> check_cost_usd;  // the check's cost (its repair's included); null: none
  bool reused = false;                   // a resumed run took the check from the run it resumes

  bool operator==(const AdaptiveRecord&) const = default;
};

// {"agree","decided_by","differences","check_cost_usd","reused"}.
nlohmann::json AdaptiveToJson(const AdaptiveRecord& adaptive);
// Strict parse of that object; kArtifactError "<where> …" otherwise.
Result<AdaptiveRecord> AdaptiveFromJson(const nlohmann::json& value, const std::string& where);

// The terminal error of a failed or cancelled run (also error.json's `error`).
struct RunError {
  std::string code;
  std::string message;
  std::optional<Stage> stage;
  std::optional<int> slot;
  std::optional<int> attempt;
  // A cancelled run: who asked, as the cancellation named it ("bg_kill", "quitting Pi", …;
  // run/cancel_cause.h). `cancelled_by` since fusion-manifest.v5; nullopt when not named, and in
  // runs written before it (their message "cancelled by <cause>" is read back instead).
  std::optional<std::string> cancelled_by;

  bool operator==(const RunError&) const = default;
};

struct Manifest {
  std::string run_id;
  std::string workflow;
  RunSource source = RunSource::kTool;
  RunState state = RunState::kInitializing;
  std::string created_at;
  std::string updated_at;
  std::string cwd;
  nlohmann::json config = nlohmann::json::object();
  RunModels models;
  nlohmann::json capabilities = nlohmann::json::object();
  nlohmann::json context = nlohmann::json::object();
  nlohmann::json tool_policy = nlohmann::json::object();
  Usage usage;  // always the sum of the attempts' usage
  std::vector<AttemptRecord> attempts;
  // Optional in the JSON form: the key is written only when a warm child was unused or replaced.
  std::vector<WarmChildRecord> warm_children;
  // Optional in the JSON form: the key is written only when a reviewer was dropped.
  std::vector<DroppedReviewerRecord> dropped_reviewers;
  // Optional in the JSON form: the key is written only for a run that left a candidate out.
  std::optional<DegradedRecord> degraded;
  // Optional in the JSON form (`adaptive`): written only by an adaptive run once it decided.
  std::optional<AdaptiveRecord> adaptive;
  // Optional in the JSON form: the named panel (fusion-models.json v3) whose cast the run used;
  // absent for a run on the file's top-level cast, and in manifests written before it.
  std::optional<std::string> panel;
  // Optional in the JSON form: the run this one resumed (/fusion-resume), by id.
  std::optional<std::string> resumed_from;
  // The weakest protection the candidates' grep and find walked under in this run
  // ("namespace+landlock", "namespace", "landlock" or "none"; docs/security.md, "Walkers in a
  // jail the kernel keeps"). Optional in the JSON form (`walk_protection`): absent when no walk
  // ran, and in manifests written before it.
  std::optional<std::string> walk_protection;
  // Optional in the JSON form, written by the commit of a completed run (docs/citations.md):
  // the citation check's record (investigate, research and validate; null for reason) and the
  // panel's agreement {agreements, conflicts, panel}. Null: no key (and in manifests before them).
  nlohmann::json citations;
  nlohmann::json agreement;
  // Optional in the JSON form, written by the commit of a completed run whose order check ran
  // (policy.order_check "on_conflict" and the evaluation had conflicts; docs/workflow.md,
  // "Order check"): {passes, order_sensitive, conflicts[{favoured_slots[], stable}]}, conflicts
  // in the evaluation's order, favoured_slots one per pass (1-3, or null for "none"). Null: no key.
  nlohmann::json order_check;
  std::map<std::string, ArtifactRef> artifacts;  // name -> ref; name == ref.path
  nlohmann::json anonymous_map;                  // null until the A/B/C map is drawn
  std::optional<RunError> error;
};

nlohmann::json RunErrorToJson(const RunError& error);
Result<RunError> RunErrorFromJson(const nlohmann::json& value, std::string_view where);

nlohmann::json ManifestToJson(const Manifest& manifest);
// Strict parse: closed objects, the v4 schema id, a valid run id whose prefix is the workflow,
// RFC 3339 timestamps, known enum names, valid refs keyed by their own path, and a `usage` equal
// to the attempts' sum. kArtifactError "manifest.json …" otherwise.
Result<Manifest> ManifestFromJson(const nlohmann::json& value);

// The shapes of `citations` ({checked, broken[{ref, reason, detail}]}, reason one of
// missing_file|past_end|quote_not_found|not_checkable; other keys allowed) and `agreement`
// ({agreements, conflicts, panel one_model|one_family|distinct}).
// IsOrderCheckRecord: Manifest::order_check's shape, each stable flag and the order_sensitive
// count consistent with the favoured slots.
bool IsCitationsRecord(const nlohmann::json& value);
bool IsAgreementRecord(const nlohmann::json& value);
bool IsOrderCheckRecord(const nlohmann::json& value);

// "namespace+landlock", "namespace", "landlock" or "none".
bool IsWalkProtection(std::string_view name);

}  // namespace pi_fusion::store
