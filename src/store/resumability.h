// Resuming a run (/fusion-resume): which ended runs can be resumed, and the verified bytes a
// resumed run takes from them.
//
// A run is resumable when it failed or was cancelled (a run whose host died is failed with
// host_ended) and at least one candidate answer verified in it. A resumed run is a new run: it
// reads the old run's inputs and verified answers back from disk, checked byte for byte against
// the old manifest's refs, and copies them into its own directory (docs/resume.md).
//
// Pure functions over a manifest, and one reader through the FileSystem seam; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/manifest.h"
#include "store/run_store.h"

namespace pi_fusion::store {

// The candidate slots (1..3, ascending) whose answers verified in `m`: attempt 1 completed with
// its response bound, not a reviewer dropped under validate's minority rule, and not the slot
// the run's terminal error names (a child that failed after its answer).
std::vector<int> VerifiedCandidateSlots(const Manifest& m);

// run_not_resumable: "run <id> cannot be resumed: <why>" (every refusal of a resume says so).
Status RunNotResumable(const std::string& run_id, const std::string& why);

// Ok when `m` can be resumed now; run_not_resumable otherwise, with the reason and what to do
// instead (a completed run: bg_result; a running one: wait or bg_kill; none verified: /fusion).
Status CheckResumable(const Manifest& m);

// Whether a resume also reuses the evaluation: every candidate verified, the anonymous map drawn,
// evaluation.json bound (written only once the evaluation verified).
bool EvaluationReusable(const Manifest& m);

// One artifact of the old run, with its verified bytes.
struct ReusedFile {
  std::string name;
  std::string bytes;
};

// An attempt of the old run whose bound files a resumed run copies and records as reused.
struct ReusedAttempt {
  AttemptRecord record;           // as the old manifest has it
  std::vector<ReusedFile> files;  // the attempt's artifacts, in its manifest order
  std::string answer;             // its verified response
};

// The batch that copies `attempt`'s files into a resumed run and records the attempt as it
// ended there, marked reused from `old_run_id` (no usage, requests or exit of this run).
StoreBatch ReuseBatch(const ReusedAttempt& attempt, const std::string& old_run_id);

struct ReusedEvaluation {
  nlohmann::json anonymous_map;         // the old run's, so the evaluation's letters still hold
  std::vector<ReusedAttempt> attempts;  // the evaluator and, if it ran, its repair
  std::vector<ReusedFile> documents;    // blind-candidates.json, evaluation.json
  std::string evaluation;               // evaluation.json's bytes
};

struct ResumeSource {
  std::string run_dir;
  Manifest manifest;                          // the old run's terminal manifest
  std::string canonical_input;                // canonical-input.json
  std::optional<std::string> context_ledger;  // context-omission-ledger.json (reason)
  std::vector<ReusedAttempt> candidates;      // VerifiedCandidateSlots order
  std::optional<ReusedEvaluation> evaluation;
};

// Reads `run_dir` for a resume: its manifest (strict), CheckResumable, then every artifact the
// manifest binds re-read and checked against its ref — a tampered evidence file makes the whole
// directory untrusted, so any mismatch is run_not_resumable naming the file.
// REQUIRES: an abandoned run was finalized first (abandoned_run.h), or it reads as still running.
Result<ResumeSource> ReadResumeSource(FileSystem& fs, const std::string& run_dir);

}  // namespace pi_fusion::store
