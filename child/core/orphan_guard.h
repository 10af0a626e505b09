// The orphan guard: a Fusion child `pi` ends, with everything it started, once its host is gone.
//
// The host spawns each child with PR_SET_PDEATHSIG = SIGKILL (src/process/spawn_posix.h). That
// alone would kill the child Pi but orphan its own children: ripgrep and fd under Pi's grep/find
// tools run in the child's process group and would search on. So once the child library is
// loaded, the guard takes over:
//   - a handler for a real-time signal no one else in Node uses SIGKILLs the child's whole
//     process group (the child leads it), and the parent-death signal is switched to that signal,
//     so the group dies the moment the host does;
//   - a watcher thread checks getppid() a few times a second and does the same when the parent
//     has changed, in case the signal could not be taken over.
// The fetcher of fusion_web_fetch is spawned through the process layer in a group of its own, and
// so dies with the child by its own parent-death signal.
//
// The signal is Linux only (PR_SET_PDEATHSIG); the watcher works everywhere. Thread-safe.
#pragma once

namespace pi_fusion::child {

// Arms the guard for this process. Idempotent: only the first call does anything.
void ArmOrphanGuard();

}  // namespace pi_fusion::child
