// A FileSystem wrapper that injects faults through the seam: an errno for the n-th matching call
// (ENOSPC on write, EIO on fsync, EXDEV on rename, ...) and a crash point after which every call
// fails and nothing more reaches the disk, as if the process had died there. It also logs the
// mutating calls so tests can check the order of durable publications. Test-only; thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/file_system.h"

namespace pi_fusion::store::testing {

enum class FsOp {
  kCreateDir,
  kCreateExclusive,
  kAppend,
  kSync,
  kClose,
  kRename,
  kSyncDir,
  kReadFile,
  kListDir,
  kUnlink,
  kStat,
  kLock,
  kLockTest,
};
const char* FsOpName(FsOp op);

class FaultFileSystem : public FileSystemWrapper {
 public:
  explicit FaultFileSystem(FileSystem& target = PosixFileSystem()) : FileSystemWrapper(target) {}

  // The (skip+1)-th call of `op` whose path contains `path_part` ("" = any) fails with `err`.
  // For kRename the path is "from -> to".
  void FailOn(FsOp op, int err, std::string path_part = "", int skip = 0);
  // After `mutating_calls` more mutating calls, every call fails with EIO and changes nothing.
  void CrashAfter(int mutating_calls);
  // The `nth` mutating call from now on (1-based, counted over every path and operation) fails
  // with `err`; the others go through. For enumerating every write of a flow: run it once clean,
  // read mutating_calls(), then fail call k for k = 1..N.
  void FailMutatingCall(int nth, int err);
  // Mutating calls attempted so far (failed ones included).
  int mutating_calls() const;
  bool crashed() const;
  // "rename:<basename of target>", "create:<basename>", ... in call order (successful calls only).
  std::vector<std::string> log() const;
  // The basenames renamed into place, in order: the durable publications.
  std::vector<std::string> published() const;

  // Checks the fault rules for one call. Public for the wrapped WritableFile.
  Status Check(FsOp op, const std::string& path);
  void Record(FsOp op, const std::string& path);

  Status CreateDir(const std::string& path, mode_t mode) override;
  Result<std::unique_ptr<WritableFile>> CreateExclusive(const std::string& path,
                                                        mode_t mode) override;
  Status Rename(const std::string& from, const std::string& to) override;
  Status SyncDir(const std::string& path) override;
  Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes) override;
  Result<std::vector<std::string>> ListDir(const std::string& path) override;
  Status Unlink(const std::string& path) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<std::unique_ptr<FileLock>> LockExclusive(const std::string& path, mode_t mode) override;
  Result<bool> IsLocked(const std::string& path) override;
  // Counted as one kCreateDir of the deepest path ("base/a/b/c").
  Status CreateDirsBeneath(const std::string& base, const std::vector<std::string>& names,
                           mode_t mode) override;

 private:
  struct Rule {
    FsOp op;
    int err;
    std::string path_part;
    int skip;
  };

  mutable std::mutex mu_;
  std::vector<Rule> rules_;
  int crash_budget_ = -1;  // -1: no crash point
  int mutating_calls_ = 0;
  int fail_call_ = 0;  // 0: none
  int fail_call_err_ = 0;
  bool crashed_ = false;
  std::vector<std::string> log_;
};

}  // namespace pi_fusion::store::testing
