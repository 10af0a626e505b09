#include "store/run_root.h"

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/run_paths.h"

namespace pi_fusion::store {
Result<std::string> CreateSessionDir(FileSystem& fs, const std::string& cwd,
                                     std::string_view session_id, long pid) {
  Status s = fs.CreateDirsBeneath(cwd, SessionDirSteps(session_id, pid), kPrivateDirMode);
  if (s.code() == kFsNotDirectory) {
    return Status::Error(kArtifactError,
                         "cannot create the run store: " + s.message() +
                             "; Fusion writes runs only into real directories of the project and "
                             "never through a link (remove it, or start Pi in another directory)");
  }
  if (!s.ok()) return Status::Error(kArtifactError, "cannot create the run store: " + s.message());
  return cwd + "/" + kRunsRoot + "/" + SessionDirName(session_id, pid);
}

}  // namespace pi_fusion::store
