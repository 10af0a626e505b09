// Starting a child process on POSIX: the Spawn() half of the POSIX ProcessEnv.
//
// Internal to the process layer; use ProcessEnv::Spawn. Thread-safe: it touches no shared state,
// and every descriptor it creates is close-on-exec from birth.
#pragma once

#include "pi_fusion/status.h"
#include "process/process_env.h"

namespace pi_fusion::process {

// Starts request.argv in a new process group with fresh stdio pipes, request.inherit_fds as its
// descriptors 3.., and no other descriptor.
// Every spawn runs on the process's spawner thread (spawner_thread.h). With
// request.die_with_parent (Linux), the child is forked with PR_SET_PDEATHSIG = SIGKILL, so it dies
// with this process however that ends (SIGKILL, crash, OOM).
// posix_spawn is used unless `use_fork` or die_with_parent is set, the platform lacks
// posix_spawn_file_actions_addclosefrom_np, or a cwd is requested on a platform without
// posix_spawn_file_actions_addchdir_np; then fork + exec does the same steps by hand.
// Errors carry code "child_spawn_failed" and leave no descriptor or process behind.
Result<SpawnedProcess> SpawnChild(const SpawnRequest& request, bool use_fork);

}  // namespace pi_fusion::process
