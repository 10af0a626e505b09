// The spawner thread: the one thread of this process that starts child processes.
//
// Why one thread: Linux's PR_SET_PDEATHSIG (see spawn_posix.h) fires when the *thread* that forked
// the child exits, not when its process does. Children spawned straight from a worker thread that
// ends before them (a warm child started by one thread and supervised by another) would be killed
// early. So every spawn is handed to this thread, which is started on first use and never exits:
// the parent-death signal then means exactly "the host process died".
//
// Internal to the process layer; SpawnChild uses it. Thread-safe.
#pragma once

#include <functional>

#include "pi_fusion/status.h"

namespace pi_fusion::process {

// Runs `task` on the spawner thread and blocks until it has returned. An exception thrown by
// `task` is rethrown here. Error code "child_spawn_failed" when the thread cannot be started (no
// task ran).
// REQUIRES: `task` never calls RunOnSpawnerThread itself (it would wait for itself).
Status RunOnSpawnerThread(const std::function<void()>& task);

}  // namespace pi_fusion::process
