// Signs of life of a running stage child for the person: a supervisor progress callback that
// reports the child's start and each new output to the run's observer as a ChildActivity (the
// time of its last byte on stdout or stderr, what the idle watchdog measures), and, for a
// tool-using child, the tool calls its journal holds so far (one line per finished call,
// re-counted when the child writes, so the count is current after each of its model turns) and
// the calls still running, from its last progress frame (protocol::LastToolsRunning).
//
// The count is for display only: the journal is verified, as always, once the child has ended.
// Thread-safe: the callback runs on the child's supervising thread; the observer is thread-safe.
#pragma once

#include <string>

#include "core/clock.h"
#include "core/file_system.h"
#include "process/supervisor.h"
#include "run/run_request.h"
#include "store/manifest.h"

namespace pi_fusion::run {

// Complete lines in `journal` (a record being written counts once whole); 0 when unreadable.
int64_t CountJournalLines(FileSystem& fs, const std::string& journal);

// REQUIRES: `observer`, `clock` and `fs` outlive every call of the callback. `journal` is the
// attempt's .tool-calls.jsonl path, or "" for a child without tools.
process::ProgressCallback WatchStageChild(RunObserver& observer, const Clock& clock, FileSystem& fs,
                                          const store::AttemptKey& key, std::string journal);

}  // namespace pi_fusion::run
