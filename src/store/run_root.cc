#include "store/run_root.h"

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/run_paths.h"

namespace pi_fusion::store {
namespace {

constexpr char kIgnoreFile[] = ".gitignore";

// Writes the ignore file when nothing is there; anything already there (the user's own file, or
// another process's just-written one) is kept.
Status EnsureIgnored(FileSystem& fs, const std::string& root) {
  const std::string path = root + "/" + kIgnoreFile;
  Result<FileInfo> info = fs.Stat(path);
  if (info.ok()) return Status::Ok();
  if (info.status().code() != kFsNotFound) {
    return Status::Error(kArtifactError, info.status().message());
  }
  return WriteFileDurably(fs, path, kRunsRootIgnore);
}

}  // namespace

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
  s = EnsureIgnored(fs, cwd + "/" + kRunsRoot);
  if (!s.ok()) return s;
  return cwd + "/" + kRunsRoot + "/" + SessionDirName(session_id, pid);
}

}  // namespace pi_fusion::store
