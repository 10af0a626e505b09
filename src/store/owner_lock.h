// The owner-liveness rule: a run's owning process holds a lock on `owner.lock` in the run
// directory for the run's whole life, and "the owner is alive" means exactly that this lock is
// held. The kernel drops the lock when the holder exits however it exits (SIGKILL, crash, OOM),
// so unlike a recorded pid — which the system reuses — a held lock cannot outlive its owner.
//
// Every reader that must decide whether a non-terminal run still has a live owner (bg_status
// after a restart, a new Pi finalizing a run whose host ended, `pi-fusion runs`/prune) asks
// OwnerAlive(); nothing else is evidence of liveness.
//
// The lock is taken before the first manifest is written (RunStore::Create), so any manifest on
// disk whose lock is not held belongs to a run whose owner is gone.
//
// Thread-safe; the probe never blocks and never takes the lock, so it cannot disturb an owner.
#pragma once

#include <memory>
#include <string>

#include "core/file_system.h"
#include "pi_fusion/status.h"

namespace pi_fusion::store {

// Takes the run's owner lock (creating `owner.lock`, mode 0600). The run is owned for as long as
// the returned object lives. kArtifactError when the file cannot be created or locked, including
// when another owner already holds it.
Result<std::unique_ptr<FileLock>> AcquireOwnerLock(FileSystem& fs, const std::string& run_dir);

// true while some process (this one included) holds `run_dir`'s owner lock; false when nobody
// does or when there is no `owner.lock` at all (the owner died before taking it, or the run is
// older than the rule). kArtifactError when the answer cannot be known (the file is not a regular
// file, the directory is unreadable, …): a caller must then not treat the run as abandoned.
Result<bool> OwnerAlive(FileSystem& fs, const std::string& run_dir);

}  // namespace pi_fusion::store
