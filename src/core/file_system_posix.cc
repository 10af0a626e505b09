// The POSIX FileSystem. Every descriptor is O_CLOEXEC; EINTR is retried everywhere.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>

#include "core/dir_walk_posix.h"
#include "core/file_system.h"

namespace pi_fusion {
namespace {

// Runs `call` until it stops failing with EINTR.
template <typename Call>
auto RetryEintr(Call call) {
  decltype(call()) rc;
  do {
    rc = call();
  } while (rc == -1 && errno == EINTR);
  return rc;
}

class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }

  Status Append(std::string_view data) override {
    while (!data.empty()) {
      const ssize_t n = RetryEintr([&] { return ::write(fd_, data.data(), data.size()); });
      if (n < 0) return FsError("write", path_, errno);
      data.remove_prefix(static_cast<size_t>(n));
    }
    return Status::Ok();
  }

  Status Sync() override {
    if (RetryEintr([&] { return ::fsync(fd_); }) != 0) return FsError("fsync", path_, errno);
    return Status::Ok();
  }

  Status Close() override {
    const int fd = fd_;
    fd_ = -1;
    // close(2) is not retried on EINTR: on Linux the descriptor is released either way.
    if (::close(fd) != 0 && errno != EINTR) return FsError("close", path_, errno);
    return Status::Ok();
  }

 private:
  std::string path_;
  int fd_;
};

class PosixFileLock : public FileLock {
 public:
  explicit PosixFileLock(int fd) : fd_(fd) {}
  // Closing the only descriptor of the open file description releases its lock.
  ~PosixFileLock() override { ::close(fd_); }

 private:
  int fd_;
};

// The whole-file write lock both LockExclusive and IsLocked speak of.
struct flock WholeFileWriteLock() {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;  // to the end of the file, however long it grows
  return lock;
}

// What a non-regular file is, for messages.
const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "another special file";
}

Status NotRegular(const std::string& path, const char* kind) {
  return Status::Error(kFsNotRegular, "read " + path + ": not a regular file (" + kind + ")");
}

Status TooLarge(const std::string& path, uint64_t size, uint64_t max_bytes) {
  return Status::Error(kFsTooLarge, "read " + path + ": " + std::to_string(size) +
                                        " bytes, over the " + std::to_string(max_bytes) +
                                        "-byte limit");
}

// fstat(2) of the open `fd`, which must be a regular file. Otherwise closes `fd` and returns the
// fstat error, or `refuse(st_mode)` for a file of another kind: each caller words that refusal
// its own way.
template <typename Refuse>
Result<struct stat> StatRegularOrClose(int fd, const std::string& path, Refuse refuse) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return FsError("fstat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return refuse(st.st_mode);
  }
  return st;
}

// The lock file is not a regular file (a FIFO or device planted under its name).
Status LockNotRegular(const std::string& path) {
  return Status::Error(kFsIoError, "lock " + path + ": not a regular file");
}

FileType TypeOf(mode_t mode) {
  if (S_ISREG(mode)) return FileType::kRegular;
  if (S_ISDIR(mode)) return FileType::kDirectory;
  if (S_ISLNK(mode)) return FileType::kSymlink;
  return FileType::kOther;
}

class PosixFileSystemImpl : public FileSystem {
 public:
  Status CreateDirsBeneath(const std::string& base, const std::vector<std::string>& names,
                           mode_t mode) override {
    return CreateDirsBeneathPosix(base, names, mode);
  }

  Status CreateDir(const std::string& path, mode_t mode) override {
    if (::mkdir(path.c_str(), mode) != 0) return FsError("mkdir", path, errno);
    // mkdir applies the umask; the directory is ours, so set the exact mode we promised.
    if (::chmod(path.c_str(), mode) != 0) return FsError("chmod", path, errno);
    return Status::Ok();
  }

  Result<std::unique_ptr<WritableFile>> CreateExclusive(const std::string& path,
                                                        mode_t mode) override {
    const int fd = RetryEintr([&] {
      return ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    });
    if (fd < 0) return FsError("open", path, errno);
    if (::fchmod(fd, mode) != 0) {
      const int err = errno;
      ::close(fd);
      ::unlink(path.c_str());
      return FsError("fchmod", path, err);
    }
    return std::unique_ptr<WritableFile>(std::make_unique<PosixWritableFile>(path, fd));
  }

  Status Rename(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0)
      return FsError("rename", from + " -> " + to, errno);
    return Status::Ok();
  }

  Status SyncDir(const std::string& path) override {
    const int fd = RetryEintr(
        [&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
    if (fd < 0) return FsError("open", path, errno);
    const int rc = RetryEintr([&] { return ::fsync(fd); });
    const int err = errno;
    ::close(fd);
    if (rc != 0) return FsError("fsync", path, err);
    return Status::Ok();
  }

  Result<std::string> ReadFile(const std::string& path, uint64_t max_bytes) override {
    return ReadRegular(path, max_bytes, O_NOFOLLOW);
  }

  Result<std::string> ReadFileFollowingLink(const std::string& path, uint64_t max_bytes) override {
    return ReadRegular(path, max_bytes, 0);
  }

  Result<std::string> RealPath(const std::string& path) override {
    char* resolved = ::realpath(path.c_str(), nullptr);
    if (resolved == nullptr) return FsError("realpath", path, errno);
    std::string out(resolved);
    ::free(resolved);
    return out;
  }

  Result<std::vector<std::string>> ListDir(const std::string& path) override {
    const int fd = RetryEintr(
        [&] { return ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); });
    if (fd < 0) return FsError("open", path, errno);
    DIR* dir = ::fdopendir(fd);  // owns fd from here on
    if (dir == nullptr) {
      const int err = errno;
      ::close(fd);
      return FsError("opendir", path, err);
    }
    std::vector<std::string> names;
    errno = 0;
    while (const dirent* entry = ::readdir(dir)) {
      const std::string_view name = entry->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    const int err = errno;
    ::closedir(dir);
    if (err != 0) return FsError("readdir", path, err);
    return names;
  }

  Status Unlink(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return FsError("unlink", path, errno);
    return Status::Ok();
  }

  Result<FileInfo> Stat(const std::string& path) override {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return FsError("lstat", path, errno);
    FileInfo info;
    info.type = TypeOf(st.st_mode);
    info.size = static_cast<uint64_t>(st.st_size);
    info.permissions = st.st_mode & 07777;
    return info;
  }

  // Open-file-description locks rather than flock(2) or classic fcntl locks: unlike classic
  // fcntl locks they conflict between two descriptors of the same process (a probe from the
  // owning process sees its own run as owned) and are not dropped when any other descriptor of
  // the file is closed; unlike flock(2) they can be tested without being taken.
  Result<std::unique_ptr<FileLock>> LockExclusive(const std::string& path, mode_t mode) override {
    const int fd = RetryEintr([&] {
      return ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    });
    if (fd < 0) return FsError("open", path, errno);
    const Result<struct stat> regular =
        StatRegularOrClose(fd, path, [&](mode_t) { return LockNotRegular(path); });
    if (!regular.ok()) return regular.status();
    if (::fchmod(fd, mode) != 0) {
      const int err = errno;
      ::close(fd);
      return FsError("fchmod", path, err);
    }
    struct flock lock = WholeFileWriteLock();
    if (RetryEintr([&] { return ::fcntl(fd, F_OFD_SETLK, &lock); }) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EAGAIN || err == EACCES) {
        return Status::Error(kFsAlreadyExists, "lock " + path + ": held by another owner");
      }
      return FsError("lock", path, err);
    }
    return std::unique_ptr<FileLock>(std::make_unique<PosixFileLock>(fd));
  }

  Result<bool> IsLocked(const std::string& path) override {
    // O_NONBLOCK: a FIFO planted under the name must not make the probe wait for a writer.
    const int fd = RetryEintr(
        [&] { return ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC); });
    if (fd < 0) return FsError("open", path, errno);
    const Result<struct stat> regular =
        StatRegularOrClose(fd, path, [&](mode_t) { return LockNotRegular(path); });
    if (!regular.ok()) return regular.status();
    struct flock lock = WholeFileWriteLock();
    const int rc = RetryEintr([&] { return ::fcntl(fd, F_OFD_GETLK, &lock); });
    const int err = errno;
    ::close(fd);
    if (rc != 0) return FsError("lock test", path, err);
    return lock.l_type != F_UNLCK;
  }

 private:
  // ReadFile and ReadFileFollowingLink: `follow` is O_NOFOLLOW (refuse a final symlink) or 0.
  static Result<std::string> ReadRegular(const std::string& path, uint64_t max_bytes, int follow) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
    const int fd = RetryEintr(
        [&] { return ::open(path.c_str(), O_RDONLY | follow | O_NONBLOCK | O_CLOEXEC); });
    if (fd < 0) {
      if (errno == ELOOP && follow != 0) return NotRegular(path, "a symbolic link");
      return FsError("open", path, errno);
    }
    const Result<struct stat> regular =
        StatRegularOrClose(fd, path, [&](mode_t mode) { return NotRegular(path, KindOf(mode)); });
    if (!regular.ok()) return regular.status();
    const struct stat& st = *regular;
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
      ::close(fd);
      return TooLarge(path, static_cast<uint64_t>(st.st_size), max_bytes);
    }
    std::string out;
    out.reserve(static_cast<size_t>(st.st_size));
    char buf[64 * 1024];
    for (;;) {
      const ssize_t n = RetryEintr([&] { return ::read(fd, buf, sizeof buf); });
      if (n < 0) {
        const int err = errno;
        ::close(fd);
        return FsError("read", path, err);
      }
      if (n == 0) break;
      if (out.size() + static_cast<size_t>(n) > max_bytes) {  // it grew while we read
        ::close(fd);
        return TooLarge(path, out.size() + static_cast<size_t>(n), max_bytes);
      }
      out.append(buf, static_cast<size_t>(n));
    }
    ::close(fd);
    return out;
  }
};

}  // namespace

std::string ErrnoText(int err) {
  return std::error_code(err, std::generic_category()).message() + " (errno " +
         std::to_string(err) + ")";
}

Status FsError(std::string_view operation, const std::string& path, int err) {
  const char* code = err == ENOENT ? kFsNotFound : err == EEXIST ? kFsAlreadyExists : kFsIoError;
  return Status::Error(code, std::string(operation) + " " + path + ": " + ErrnoText(err));
}

FileSystem& PosixFileSystem() {
  // Stateless, so sharing one instance is not shared mutable state.
  static PosixFileSystemImpl fs;
  return fs;
}

}  // namespace pi_fusion
