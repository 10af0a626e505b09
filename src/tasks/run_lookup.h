// The run a tool names by id or prefix, wherever it is recorded: this process's task registry,
// this session's runs from earlier Pi processes (session_runs.h), or any run in the project's run
// store. bg_status, bg_result, bg_kill and /fusion-resume share this one lookup order.
//
// Thread-safe (reads only through the FileSystem seam, and times only through the Clock seam).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "tasks/task_registry.h"

namespace pi_fusion::tasks {

// `earlier` without the runs `live` knows (a run of this process is never listed twice).
std::vector<TaskInfo> NotLive(const TaskRegistry& live, std::vector<TaskInfo> earlier);

// The registry's task, else one of `earlier` (exact id or unambiguous prefix). An ambiguous
// prefix among the live tasks is that error; an unknown id in both is the registry's error.
TaskLookup ResolveLiveOrEarlier(const TaskRegistry& live, const std::vector<TaskInfo>& earlier,
                                std::string_view id_or_prefix);

// Looks for `<cwd>/.pi/fusion/*/<run-id>/` written by an earlier (or another) host process, named
// by `query`: the run id, a prefix of it, or the short id the views show (store::RunIdMatches);
// a query that names several runs is the registry's ambiguous-prefix error. A
// non-terminal run whose owner is gone is first finalized as host_ended (store/abandoned_run.h);
// one whose owner is alive is reported running, with that owner's pid and session; a cancelled
// one says who cancelled it when it recorded that. Empty when there is no such directory; an
// error (artifact_error, naming manifest.json) when there is one but its manifest is unreadable.
// `clock` stamps that finalization.
Result<std::optional<TaskInfo>> FindRunOnDisk(FileSystem& fs, const Clock& clock,
                                              const std::string& cwd, const std::string& query);

// The run a tool names by id or prefix, in the one lookup order: this process's task, else this
// session's runs from earlier Pi processes (`earlier`, ResolveLiveOrEarlier), else any run in the
// project's run store at `cwd` (FindRunOnDisk: another session's, or one whose session Pi never
// saved; skipped when `cwd` is empty). The first lookup's miss when none knows it.
Result<TaskInfo> ResolveTask(const TaskRegistry& live, const std::vector<TaskInfo>& earlier,
                             FileSystem& fs, const Clock& clock, const std::string& cwd,
                             const std::string& id);

}  // namespace pi_fusion::tasks
