// The background tasks of one host session: Fusion runs registered at the end of preflight,
// their progress, terminal state and cancellation. The contract's ids are run ids
// (`^(reason|investigate|research|validate)-[0-9a-f]{32}$`); lookups accept an unambiguous prefix
// of the id or of its hex part (the short id the progress line shows, store::RunIdMatches).
//
// Thread-safe: runs report from worker threads while tools query from the JS thread.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "tasks/progress.h"
#include "tasks/resume_hint.h"

namespace pi_fusion::tasks {

enum class TaskState { kRunning, kCompleted, kFailed, kKilled };
std::string_view TaskStateName(TaskState state);  // "running" | "completed" | "failed" | "killed"
// Back from TaskStateName (a tool result's details.state); nullopt for any other text.
std::optional<TaskState> ParseTaskState(std::string_view name);

struct TaskInfo {
  std::string id;           // the run id
  std::string workflow;     // "reason", ...
  std::string label;        // "fusion reason"
  std::string description;  // the request, whitespace-collapsed, cut to kDescriptionMaxChars
  std::string source;       // "tool" | "command"
  std::string artifact_dir;
  // What the person asked, for the views: the request's prompt (reason) or objective (the others)
  // in the description's words; for a run read from disk, its first line. Never parsed back out of
  // the description, whose form is the contract's (and was the request's JSON in older versions).
  std::string question;
  TaskState state = TaskState::kRunning;
  std::string last_progress;  // the newest progress line
  std::string terminal_text;  // set when the task ends
  // A failed run's reason in one text: the contract's failure line (a run of this process), or
  // its recorded error "code: message" (a run read from disk); "" for any other state. Views
  // show it as it is instead of cutting it back out of terminal_text.
  std::string failure;
  ProgressSnapshot progress;  // stage, slots and times; started_ms set by the caller of Add
  CancelSource cancelled_by = CancelSource::kUnknown;  // set by the first cancellation request
  std::string session_id;  // the Pi session that launched it ("" for a run read from disk)
  // A run read from disk whose Pi session was never saved (session_runs.h UnsavedSessionRuns).
  bool unsaved_session = false;
  // A run read from disk that another live Pi process owns: that process's pid and the session
  // its run directory names (0 and "" otherwise). Only that process is notified when it ends.
  long owner_pid = 0;
  std::string owner_session;
  // A run read from disk that /fusion-resume can take up (resume_hint.h); nullopt otherwise, and
  // for the runs of this process (their views read it from the run directory themselves).
  std::optional<ResumeHint> resume;
  // What a completed run's answer lacks, in the run lists' words: "degraded (2 of 3 candidates)",
  // "1 declared source failed", both joined by "; "; "" for a full answer or another state.
  std::string answer_note;
  // The run this one resumed (its manifest's resumed_from), "" for a run started afresh.
  std::string resumed_from;
  // The named panel the run used (its manifest's panel), "" for the top-level cast.
  std::string panel;
  // The launch's cost estimate in one line ("Estimate (expected – worst case): …"), for the live
  // view to repeat; "" for a run read from disk.
  std::string estimate;
  // A run read from disk that a completed run resumed (RunListing::resumed_as): that run's id.
  std::string resumed_as;
};

// Error texts of the contract.
inline constexpr char kTaskIdRequired[] = "Task ID is required";

// Why a lookup by id or prefix found no task. Every miss is invalid_arguments with the contract's
// text; the kind lets a caller look elsewhere when no task matched at all without reading the text.
enum class LookupMiss { kNone, kIdRequired, kUnknownId, kAmbiguousPrefix };

// A task looked up by exact id or unambiguous prefix: the task, or the contract's error and its
// kind. Errors (code invalid_arguments): "Task ID is required", "Unknown background task ID: <id>",
// "Ambiguous background task ID prefix: <p> (matches <a>, <b>)".
class [[nodiscard]] TaskLookup : public Result<TaskInfo> {
 public:
  TaskLookup(TaskInfo task)  // NOLINT(google-explicit-constructor): found, like Result's
      : Result<TaskInfo>(std::move(task)) {}
  // The error of `miss` for `id_or_prefix` (kNone reads as kIdRequired); `matches` are the ids
  // an ambiguous prefix matches, in order.
  static TaskLookup Missed(LookupMiss miss, std::string_view id_or_prefix,
                           const std::vector<std::string>& matches = {});
  LookupMiss miss() const { return miss_; }  // kNone when found

 private:
  TaskLookup(Status error, LookupMiss miss) : Result<TaskInfo>(std::move(error)), miss_(miss) {}
  LookupMiss miss_ = LookupMiss::kNone;
};

class TaskRegistry {
 public:
  void Add(TaskInfo task, process::CancelToken cancel);
  // Exact id or unambiguous prefix among this session's tasks.
  TaskLookup Resolve(std::string_view id_or_prefix) const;
  std::vector<TaskInfo> List() const;  // in registration order
  // Applies a structured update; last_progress becomes "<label>: <line>".
  void Progress(const std::string& id, const run::ProgressUpdate& update, int64_t now_ms);
  // Records a running child's sign of life (ProgressTracker::Note).
  void Activity(const std::string& id, const run::ChildActivity& activity);
  // `answer_note`: TaskInfo::answer_note of a completed run.
  void Finish(const std::string& id, TaskState state, const std::string& terminal_text,
              const std::string& failure, const std::string& answer_note = "");
  // Cancels a running task; "Background task <id> is not running" otherwise.
  Result<TaskInfo> Kill(std::string_view id_or_prefix, CancelSource source = CancelSource::kBgKill);
  void CancelAll(CancelSource source = CancelSource::kUnknown);
  size_t RunningCount() const;

 private:
  struct Entry {
    TaskInfo info;
    process::CancelToken cancel;
    ProgressTracker tracker{0};
  };
  TaskLookup LookupLocked(std::string_view id_or_prefix) const;

  mutable std::mutex mu_;
  std::vector<std::string> order_;      // guarded by mu_
  std::map<std::string, Entry> tasks_;  // guarded by mu_
};

// "fusion reason" for workflow "reason".
std::string TaskLabel(std::string_view workflow);

// A task's description is cut to this many characters (whole UTF-8 code points).
inline constexpr size_t kDescriptionMaxChars = 240;
// The description of a task: whitespace collapsed to single spaces, trimmed, cut to
// kDescriptionMaxChars.
std::string TaskDescription(std::string_view request_text);

}  // namespace pi_fusion::tasks
