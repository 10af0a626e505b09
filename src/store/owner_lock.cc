#include "store/owner_lock.h"

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/run_paths.h"

namespace pi_fusion::store {

Result<std::unique_ptr<FileLock>> AcquireOwnerLock(FileSystem& fs, const std::string& run_dir) {
  auto lock = fs.LockExclusive(ArtifactPath(run_dir, kOwnerLockFile), kPrivateFileMode);
  if (!lock.ok()) {
    return Status::Error(kArtifactError,
                         "cannot take the run's owner lock: " + lock.status().message());
  }
  return lock;
}

Result<bool> OwnerAlive(FileSystem& fs, const std::string& run_dir) {
  auto held = fs.IsLocked(ArtifactPath(run_dir, kOwnerLockFile));
  if (held.ok()) return held.value();
  if (held.status().code() == kFsNotFound) return false;
  return Status::Error(kArtifactError,
                       "cannot tell whether the run's owner is alive: " + held.status().message());
}

}  // namespace pi_fusion::store
