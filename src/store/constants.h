// The run store's identifiers, file names and limits, in one place. Docs (docs/artifacts.md),
// schemas (schemas/artifacts/) and tests refer to these names rather than restating them.
#pragma once

#include "core/error_codes.h"

#include <cstddef>
#include <cstdint>

namespace pi_fusion::store {

// Schema ids (CONTRACTS.md "Schema ids"). Written: the current ids. Read: the current ids and the
// previous ones (kManifestSchemaV4, kResultDetailsSchemaV5), whose keys are a subset of the
// current ones' (the current ids name the keys added since: docs/artifacts.md), so runs written
// before still list, verify and resume.
inline constexpr char kManifestSchema[] = "pi-background-tasks.fusion-manifest.v5";
inline constexpr char kManifestSchemaV4[] = "pi-background-tasks.fusion-manifest.v4";
inline constexpr char kCommittedResultSchema[] = "pi-background-tasks.fusion-committed-result.v1";
inline constexpr char kResultDetailsSchema[] = "pi-background-tasks.fusion-result.v6";
inline constexpr char kResultDetailsSchemaV5[] = "pi-background-tasks.fusion-result.v5";
inline constexpr char kFailureSummarySchema[] = "pi-background-tasks.fusion-failure-summary.v1";

// Fixed run-level artifact names.
inline constexpr char kManifestFile[] = "manifest.json";
inline constexpr char kMergedFile[] = "merged.md";
inline constexpr char kResultFile[] = "result.json";
inline constexpr char kErrorFile[] = "error.json";
inline constexpr char kFailureSummaryFile[] = "failure-summary.json";
// The run's inputs and stage documents a resumed run reads back (resumability.h).
inline constexpr char kCanonicalInputFile[] = "canonical-input.json";
inline constexpr char kContextLedgerFile[] = "context-omission-ledger.json";
inline constexpr char kBlindCandidatesFile[] = "blind-candidates.json";
inline constexpr char kEvaluationFile[] = "evaluation.json";
// The once-only usage claim; never an artifact of the manifest (it is written after completion).
inline constexpr char kUsageClaimFile[] = "usage-claim.json";
// The owner-liveness lock (owner_lock.h); empty, never an artifact of the manifest.
inline constexpr char kOwnerLockFile[] = "owner.lock";

// Directories under the session's cwd: <cwd>/.pi/fusion/<session>-<pid>/<run-id>/.
inline constexpr char kRunsRoot[] = ".pi/fusion";

// Sanitized session ids are cut to this many bytes.
inline constexpr size_t kSessionIdMaxBytes = 64;
// Artifact basenames are at most this long (well under NAME_MAX with the temp suffix).
inline constexpr size_t kArtifactNameMaxBytes = 128;

// Failure summary bounds.
inline constexpr size_t kTerminalMessageMaxBytes = 1024;
inline constexpr size_t kSummaryMaxAttempts = 24;
inline constexpr size_t kSummaryMaxEvidence = 64;
// The bounded note the failure channel carries when the summary could not be written.
inline constexpr size_t kSummaryNoteMaxBytes = 256;

// Read caps (store/artifact_ref.h ArtifactReadCap): no file of a run directory is read unless it is
// at most this long, checked before reading, so a broken or hostile directory cannot make a reader
// allocate without bound. Each is far above what a run writes.
// The manifest and result.json hold refs, attempts and small summaries: kilobytes in practice.
inline constexpr uint64_t kManifestMaxBytes = 4u << 20;
inline constexpr uint64_t kResultMaxBytes = 4u << 20;
// The merger's answer is capped at 64 KiB of JSON-escaped text (CONTRACTS.md "Budget"); validate's
// host-rendered report draws on the evaluation and three reports, so leave room.
inline constexpr uint64_t kMergedMaxBytes = 1u << 20;
// error.json and failure-summary.json are bounded by kTerminalMessageMaxBytes and the summary
// row limits above.
inline constexpr uint64_t kErrorMaxBytes = 64u << 10;
inline constexpr uint64_t kFailureSummaryMaxBytes = 1u << 20;
// Any other artifact: the largest is a child's kept stdout (32 MiB) or stderr (16 MiB).
inline constexpr uint64_t kArtifactMaxBytes = 64u << 20;

// bg_result's failure view must fit this many bytes of canonical JSON.
inline constexpr size_t kFailureViewMaxBytes = 8192;

}  // namespace pi_fusion::store
