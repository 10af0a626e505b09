// FileSystem: the seam between the core and the operating system's file calls.
//
// In the manner of leveldb's Env, every file operation the run store makes (directories with a
// mode, exclusive creation, write/fsync/close, rename, directory fsync, whole-file reads, listing,
// unlink, lstat, the owner's lock) goes through this interface. Production code uses
// PosixFileSystem(); tests derive from FileSystemWrapper and override one method to inject a fault
// (ENOSPC on write, EIO on fsync, a failing rename, a crash point) without touching a real full
// disk.
//
// Rules every implementation keeps:
//   - every descriptor is opened O_CLOEXEC, so a child spawned by another thread at the same
//     moment cannot inherit it;
//   - paths are never followed through a final symlink when opened for reading or creation
//     (O_NOFOLLOW), and Stat() is lstat(): a run directory never trusts a planted link (the one
//     exception, ReadFileFollowingLink, is for files the user keeps, outside Fusion's own);
//   - created files and directories get exactly the requested mode (the umask is not applied);
//   - EINTR is retried, short writes are continued.
//
//   - reads are bounded and of regular files only: ReadFile() opens without following a final
//     symlink and without blocking (O_NOFOLLOW|O_NONBLOCK), refuses anything fstat(2) does not
//     call a regular file (a FIFO planted under an artifact's name must not hang a reader) and
//     refuses a file over the caller's cap before reading a byte of it.
//
// Errors are Status values with one of the codes below and a message
// "<operation> <path>: <errno text>", made by FsError() so fakes produce identical texts.
//
// Thread-safety: the POSIX implementation is stateless and safe to use from many threads at once.
// A WritableFile is used by one thread at a time.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error_codes.h"
#include "pi_fusion/status.h"

namespace pi_fusion {

// Status codes of the file-system seam. Callers translate them into the spec's codes
// (artifact_error, config_conflict, …); they are never shown to users as-is.
inline constexpr char kFsNotFound[] = "not_found";            // ENOENT
inline constexpr char kFsAlreadyExists[] = "already_exists";  // EEXIST
inline constexpr const char* kFsIoError = kIoError;           // any other errno
// ReadFile() of something that is not a regular file (FIFO, device, socket, directory, symlink).
inline constexpr char kFsNotRegular[] = "not_regular";
// ReadFile() of a file longer than the caller's cap.
inline constexpr char kFsTooLarge[] = "too_large";
// CreateDirsBeneath() met a step that is a symlink or not a directory.
inline constexpr char kFsNotDirectory[] = "not_directory";

// "Read-only file system (errno 30)": thread-safe, unlike strerror().
std::string ErrnoText(int err);
// The Status for errno `err` of `operation` on `path`, with the code chosen from `err` as above.
Status FsError(std::string_view operation, const std::string& path, int err);

enum class FileType { kRegular, kDirectory, kSymlink, kOther };

struct FileInfo {
  FileType type = FileType::kOther;
  uint64_t size = 0;
  mode_t permissions = 0;  // the 07777 bits only
};

// A locked file, held until the object is destroyed or the process dies (the kernel then releases
// it, which is what makes a held lock proof that its holder is alive). Not inherited by children
// (the descriptor is O_CLOEXEC).
class FileLock {
 public:
  virtual ~FileLock() = default;
};

// An open, exclusively created file. The destructor closes it if Close() was not called
// (ignoring errors), so an abandoned file never leaks its descriptor.
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Writes all of `data` at the current end of the file.
  virtual Status Append(std::string_view data) = 0;
  // fsync(2): data and metadata reach stable storage.
  virtual Status Sync() = 0;
  // REQUIRES: called at most once; no other call follows it.
  virtual Status Close() = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // mkdir(2) of one directory with exactly `mode`. kFsAlreadyExists if anything is at `path`.
  virtual Status CreateDir(const std::string& path, mode_t mode) = 0;
  // Creates a new file with exactly `mode`, failing with kFsAlreadyExists when the name exists
  // (O_CREAT|O_EXCL, never through a symlink). The caller owns the returned file.
  virtual Result<std::unique_ptr<WritableFile>> CreateExclusive(const std::string& path,
                                                                mode_t mode) = 0;
  // rename(2): atomically replaces `to` when both are in the same file system.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;
  // fsync(2) of a directory, making the names created or renamed in it durable.
  virtual Status SyncDir(const std::string& path) = 0;
  // The whole content of the regular file `path`, at most `max_bytes` long. Never through a final
  // symlink, never blocking on a FIFO or device: kFsNotRegular for anything but a regular file,
  // kFsTooLarge when it is longer than `max_bytes` (from fstat(2) before reading, and again
  // while reading, for a file that grows meanwhile).
  virtual Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes) = 0;
  // ReadFile for a file the user keeps and may link from elsewhere (Pi's own models.json, a file
  // named to a child in its environment): a final symlink is followed, as Pi's own reads would
  // follow it. Everything else is as ReadFile: regular files only, never blocking, capped. Never
  // for a file of a run directory or of Fusion's own configuration.
  virtual Result<std::string> ReadFileFollowingLink(const std::string& path,
                                                    uint64_t max_bytes) = 0;
  // realpath(3): the absolute path of an existing `path` with every symlink, "." and ".."
  // resolved. For telling whether two paths the user gave name the same place, never for opening.
  virtual Result<std::string> RealPath(const std::string& path) = 0;
  // The names in a directory, without "." and "..", in no particular order.
  virtual Result<std::vector<std::string>> ListDir(const std::string& path) = 0;
  // unlink(2) of a file.
  virtual Status Unlink(const std::string& path) = 0;
  // lstat(2): a symlink is reported as kSymlink, never followed.
  virtual Result<FileInfo> Stat(const std::string& path) = 0;
  // Creates `path` (exactly `mode`) if it does not exist, never through a symlink, and takes an
  // exclusive whole-file lock on it (an open-file-description lock, fcntl F_OFD_SETLK), held as
  // long as the returned object lives. kFsAlreadyExists when another holder has it. Never blocks.
  virtual Result<std::unique_ptr<FileLock>> LockExclusive(const std::string& path, mode_t mode) = 0;
  // Whether some holder — in this process or any other — has the lock of LockExclusive on the
  // regular file `path`. Only tests (F_OFD_GETLK), never takes the lock, so a probe can neither
  // make an owner's LockExclusive fail nor need write access. kFsNotFound when `path` does not
  // exist; kFsIoError when it is not a regular file. Never blocks (a FIFO is not opened to wait).
  virtual Result<bool> IsLocked(const std::string& path) = 0;
  // Makes `names` exist one inside the other beneath the directory `base` (base/names[0]/...),
  // walking from a descriptor of `base` with mkdirat(2) and openat(2), no step ever followed
  // through a symlink (O_NOFOLLOW|O_DIRECTORY). A directory this call creates gets exactly `mode`
  // and its parent is fsynced; an existing one is kept as it is. kFsNotDirectory, naming the
  // step, when a step is a symlink or not a directory: nothing is created through or beyond it.
  // `base` itself may be reached through symlinks (a symlinked home or project is the user's).
  // REQUIRES: each name is one path component, not "." or "..".
  virtual Status CreateDirsBeneath(const std::string& base, const std::vector<std::string>& names,
                                   mode_t mode) = 0;
};

// The POSIX implementation. Stateless; never null; lives for the whole program.
FileSystem& PosixFileSystem();

// Forwards every call to a target; tests override the calls they want to break.
// REQUIRES: `target` outlives the wrapper.
class FileSystemWrapper : public FileSystem {
 public:
  explicit FileSystemWrapper(FileSystem& target) : target_(target) {}

  FileSystem& target() const { return target_; }

  Status CreateDir(const std::string& path, mode_t mode) override {
    return target_.CreateDir(path, mode);
  }
  Result<std::unique_ptr<WritableFile>> CreateExclusive(const std::string& path,
                                                        mode_t mode) override {
    return target_.CreateExclusive(path, mode);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    return target_.Rename(from, to);
  }
  Status SyncDir(const std::string& path) override { return target_.SyncDir(path); }
  Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes) override {
    return target_.ReadFile(path, max_bytes);
  }
  Result<std::string> ReadFileFollowingLink(const std::string& path, uint64_t max_bytes) override {
    return target_.ReadFileFollowingLink(path, max_bytes);
  }
  Result<std::string> RealPath(const std::string& path) override { return target_.RealPath(path); }
  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    return target_.ListDir(path);
  }
  Status Unlink(const std::string& path) override { return target_.Unlink(path); }
  Result<FileInfo> Stat(const std::string& path) override { return target_.Stat(path); }
  Result<std::unique_ptr<FileLock>> LockExclusive(const std::string& path, mode_t mode) override {
    return target_.LockExclusive(path, mode);
  }
  Result<bool> IsLocked(const std::string& path) override { return target_.IsLocked(path); }
  Status CreateDirsBeneath(const std::string& base, const std::vector<std::string>& names,
                           mode_t mode) override {
    return target_.CreateDirsBeneath(base, names, mode);
  }

 private:
  FileSystem& target_;
};

}  // namespace pi_fusion
