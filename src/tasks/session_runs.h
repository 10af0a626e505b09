// This session's runs from earlier Pi processes (before `pi -c`, a restart or a /reload), read
// from disk: `<cwd>/.pi/fusion/<sanitized-session-id>-<pid>/<run-id>/`. A run whose manifest is
// not terminal is reported as running only while its owner holds the run's owner lock
// (store/owner_lock.h, the one liveness rule, applied by run_catalog.h); otherwise it was
// interrupted.
//
// Thread-safe (reads only through the FileSystem seam, and times only through the Clock seam).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "store/manifest.h"
#include "tasks/run_catalog.h"
#include "tasks/task_registry.h"

namespace pi_fusion::tasks {

// Runs of `session_id` under `cwd` written by processes other than `own_pid`, oldest first.
// Unreadable run directories are skipped. A non-terminal run whose owner is gone is first
// finalized durably as failed with host_ended (store::FinalizeIfAbandoned, stamped by `clock`), so
// what is reported is what the run directory now says.
std::vector<TaskInfo> SessionRunsOnDisk(FileSystem& fs, const Clock& clock, const std::string& cwd,
                                        std::string_view session_id, long own_pid);

// The session ids of Pi's saved session files in `session_dir` (`<timestamp>_<id>.jsonl`),
// sanitized as run directories name them. Empty when the directory cannot be listed.
std::set<std::string> SavedSessionIds(FileSystem& fs, const std::string& session_dir);

// Runs of this project whose Pi session was never saved, newest first, at most `limit`. Pi writes
// a session file only once the session holds a user or assistant message, so a session that only
// ran /fusion leaves none, and `pi -c` opens another one; these runs would be known to no session.
// A session is saved when its sanitized id is in `saved`; `own_session_id`'s runs are never
// listed (they are this session's). Rows are marked `unsaved_session`; non-terminal runs whose
// owner is gone are finalized first, as in SessionRunsOnDisk.
std::vector<TaskInfo> UnsavedSessionRuns(FileSystem& fs, const Clock& clock, const std::string& cwd,
                                         const std::set<std::string>& saved,
                                         std::string_view own_session_id, size_t limit);

// The Pi process that wrote `run_dir` (`…/<sanitized-session-id>-<pid>/<run-id>`): its pid and
// session; false when the session directory's name has no pid.
bool RunDirOwner(std::string_view run_dir, long* pid, std::string* session);

// "another Pi process (pid 4242, session 0f3a…)": who owns a run that task.owner_pid names.
std::string OwnerText(const TaskInfo& task);

// A run read from disk as a task: the one converter from a run directory's manifest to a TaskInfo,
// for this session's earlier runs, the runs of unsaved sessions, a launched run's end and the run
// a tool names in the project's run store (run_lookup.h). It fills every field a run directory
// says: id, workflow, label, artifact directory, source, question (and description: the
// listing's question, "" when not read), resume hint, the runs it resumed or was resumed as, and
// how it stands: completed; cancelled, by whom; failed, with its recorded error; interrupted (its
// owner gone: reported failed); or running in another live Pi (that Pi's pid and session, and
// the run's stage). nullopt when the listing has no manifest.
std::optional<TaskInfo> TaskOfRun(const RunListing& run);

// A cancelled run read from disk: who cancelled it, from the cause its terminal error records
// (run/cancel_cause.h); kUnknown for runs that recorded none.
CancelSource CancelledByOnDisk(const store::Manifest& manifest);

// The run in `run_dir` as SessionRunsOnDisk would list it, read only (an interrupted run is
// reported failed, not finalized); nullopt when the directory holds no readable manifest of
// `run_id`.
std::optional<TaskInfo> RunOnDisk(FileSystem& fs, const std::string& run_dir,
                                  const std::string& run_id);

// Exact id or unambiguous prefix among `runs`, with the registry's errors.
TaskLookup ResolveAmong(const std::vector<TaskInfo>& runs, std::string_view id_or_prefix);

}  // namespace pi_fusion::tasks
