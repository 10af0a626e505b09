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

// Whether attempt `a` is evidence a resume may reuse: completed without an error (a completed
// attempt records one when its child failed after its verified answer, or when a validate
// reviewer's report did not parse), and its exit, when recorded, clean: exit code 0 without a
// signal or a stop, or a stop the run made after the answer (after_answer, cancelled). An attempt
// without an exit (its host died before reaping it, or it was itself reused) is judged by its
// state and error alone.
bool IsCleanEvidence(const AttemptRecord& a);

// The artifact that holds candidate `slot`'s answer: "candidate-2.attempt-1.response.md".
std::string CandidateResponseName(int slot);

// The candidate slots (1..3, ascending) whose answers verified in `m`: attempt 1 is clean
// evidence with its response bound, not a reviewer dropped under validate's minority rule, and
// not the slot the run's terminal error names (a child that failed after its answer).
std::vector<int> VerifiedCandidateSlots(const Manifest& m);

// run_not_resumable: "run <id> cannot be resumed: <why>" (every refusal of a resume says so).
Status RunNotResumable(const std::string& run_id, const std::string& why);

// Ok when `m` can be resumed now; run_not_resumable otherwise, with the reason and what to do
// instead (a completed run: bg_result; a running one: wait or bg_kill; none verified: /fusion
// for a reason run, the agent's fusion_<workflow> tool for the others).
Status CheckResumable(const Manifest& m);

// Whether a resume also reuses the evaluation: every candidate verified, the anonymous map drawn,
// evaluation.json bound (written only once the evaluation verified), every evaluation attempt
// clean evidence, and the run's terminal error not the evaluation's.
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
// ended there, marked reused from the run that first produced it: its own reused_from when the
// old run had reused it too, else `old_run_id` (no usage, requests or exit of this run).
StoreBatch ReuseBatch(const ReusedAttempt& attempt, const std::string& old_run_id);

struct ReusedEvaluation {
  nlohmann::json anonymous_map;         // the old run's, so the evaluation's letters still hold
  std::vector<ReusedAttempt> attempts;  // the evaluator and, if it ran, its repair
  std::vector<ReusedFile> documents;    // blind-candidates.json, evaluation.json
  std::string evaluation;               // evaluation.json's bytes
  // The order check's attempts (policy.order_check) that ended as clean evidence, in attempt
  // order: a resumed run reuses one whose recorded prompt is byte for byte the one it would send.
  std::vector<ReusedAttempt> order_checks;
};

struct ResumeSource {
  std::string run_dir;
  Manifest manifest;                          // the old run's terminal manifest
  std::string canonical_input;                // canonical-input.json
  std::optional<std::string> context_ledger;  // context-omission-ledger.json (reason)
  std::vector<ReusedAttempt> candidates;      // VerifiedCandidateSlots order
  std::optional<ReusedEvaluation> evaluation;
};

// The id of a completed run of the same project that resumed run `run_id` (its manifest's
// resumed_from), found among the run directories beside `run_dir`'s session directory; nullopt
// when none did (or none can be read). A run resumed to completion is not offered again: its
// answer exists.
std::optional<std::string> CompletedResumeOf(FileSystem& fs, const std::string& run_dir,
                                             const std::string& run_id);

// run_not_resumable for a run already resumed by the completed run `resumed_as`, saying where
// its answer is.
Status ResumedAlready(const std::string& run_id, const std::string& resumed_as);

// Reads `run_dir` for a resume: its manifest (strict; its run_id must be the directory's name),
// CheckResumable, not resumed already (CompletedResumeOf), then every artifact the
// manifest binds re-read and checked against its ref — a tampered evidence file makes the whole
// directory untrusted, so any mismatch is run_not_resumable naming the file.
// REQUIRES: an abandoned run was finalized first (abandoned_run.h), or it reads as still running.
Result<ResumeSource> ReadResumeSource(FileSystem& fs, const std::string& run_dir);

}  // namespace pi_fusion::store
