// The runs of one project on disk, for `pi-fusion runs`, `verify` and `prune`:
//
//   <cwd>/.pi/fusion/<session>-<pid>/<run-id>/
//
// Liveness is the store's one rule (store/owner_lock.h): a run's owner is alive exactly while it
// holds the run's owner lock. A non-terminal run whose owner is gone is "interrupted"; when the
// answer cannot be known the run is treated as owned (never interrupted, never pruned).
//
// Reads only through the FileSystem seam (the owner probe never takes the lock); thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/manifest.h"
#include "tasks/resume_hint.h"

namespace pi_fusion::tasks {

// The state `runs` shows for a non-terminal run whose owner is gone.
inline constexpr std::string_view kInterruptedState = "interrupted";
// Without --older-than, prune takes runs at least this old.
inline constexpr std::chrono::hours kDefaultPruneAge{24 * 30};

struct RunListing {
  std::string run_dir;
  std::string run_id;                       // the directory's name
  std::optional<store::Manifest> manifest;  // nullopt when manifest.json cannot be read
  std::string manifest_error;               // why not
  bool owner_alive = false;                 // the owner lock is held, or its state is unknown
  std::string owner_error;                  // why the owner's state is unknown ("" when known)
  uint64_t size_bytes = 0;                  // regular files in the run directory
  std::string question;                     // the request's first line ("" when unknown)
  // The completed run of the project that resumed this one (ListRuns fills it in; "" when none
  // did, and in a RunListing read alone): its answer exists, so it is not resumable any more.
  std::string resumed_as;

  // The manifest's state, "interrupted" (non-terminal, owner gone) or "unreadable".
  std::string State() const;
  // Who cancelled a cancelled run ("quitting Pi"), as it recorded that; "" when it did not (or
  // the run was not cancelled).
  std::string CancelCause() const;
  bool terminal() const;
  // How the run can be resumed (resume_hint.h): a failed or cancelled run with a verified
  // candidate answer, or an interrupted one with one (a later Pi finalizes it as host_ended
  // first). nullopt for every other run, when the manifest cannot be read, and once a completed
  // run resumed it (resumed_as).
  std::optional<ResumeHint> Resume() const;
  // created_at to the run's end: its last update once it ended, its last recorded activity (the
  // latest attempt start or end) when its host ended first — interrupted, or finalized later as
  // failed with host_ended. None while it runs or when the times cannot be read.
  std::optional<int64_t> DurationMs() const;
};

// Every run directory of `cwd`, newest first (by created_at, then by id), each with the completed
// run that resumed it, if any (resumed_as). A missing <cwd>/.pi/fusion is an empty list.
std::vector<RunListing> ListRuns(FileSystem& fs, const std::string& cwd);

// One run directory's manifest and owner, nothing more (no size, no question): for a view that
// only needs the run's state.
RunListing ReadRunState(FileSystem& fs, std::string run_dir, std::string run_id);
// The same for a manifest the caller has read already: only the owner is probed.
RunListing RunStateOf(FileSystem& fs, std::string run_dir, std::string run_id,
                      store::Manifest manifest);

// What `pi-fusion runs` shows of a completed run's result, read only once every byte the manifest
// binds has been verified, as bg_result reads it: {"estimate": the cost estimate the run kept
// (result details `estimate`, null before it existed)} and, for a workflow that declares sources
// (run/source_failures.h), "source_failures": the rows [{url, code}] (an empty array when every
// source was fetched) and "no_source_fetched": whether none was. Null for a run that did not
// complete, and for one whose result does not verify (`pi-fusion verify` says why).
nlohmann::json VerifiedReportOf(FileSystem& fs, const RunListing& run);

// Milliseconds since the epoch of a manifest timestamp (store::FormatTimestamp's form).
std::optional<int64_t> TimestampMillis(const std::string& timestamp);

// "30d", "12h", "45m", "90s": a positive count and one unit. invalid_arguments otherwise.
Result<std::chrono::milliseconds> ParseAge(std::string_view text);

struct PruneFilter {
  std::chrono::milliseconds older_than = kDefaultPruneAge;
  // Any of "completed", "failed", "cancelled", "interrupted"; empty means the terminal three.
  std::vector<std::string> states;
};

// The runs prune would delete: a readable manifest, an owner known to be gone, a matching state
// and created at least `older_than` before `now_ms`. Never a run whose owner is alive.
std::vector<RunListing> SelectForPrune(const std::vector<RunListing>& runs,
                                       const PruneFilter& filter, int64_t now_ms);

// The result of `verify`: the same byte checks as bg_result, every problem named.
struct RunCheck {
  std::optional<store::Manifest> manifest;
  std::vector<std::string> problems;  // empty: intact
};

// Checks `run_dir` without writing anything (no usage claim, no lock):
//   manifest.json parses (strict v4), its run_id is the directory's name;
//   every artifact ref: a regular file with the recorded length and SHA-256;
//   completed runs: the whole bg_result verification (result.json binding, merged.md);
//   failed and cancelled runs: the failure summary the manifest binds checks out.
RunCheck CheckRun(FileSystem& fs, const std::string& run_dir);

}  // namespace pi_fusion::tasks
