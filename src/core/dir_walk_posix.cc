// Creating directories beneath a directory descriptor. A path-based mkdir -p follows every
// symlink on the way: a repository that ships `.pi` as a link to /elsewhere would have the run
// store made at /elsewhere before any check could object. Each step here is opened with
// O_NOFOLLOW|O_DIRECTORY relative to the previous one, so a link stops the walk where it stands.
#include "core/dir_walk_posix.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/file_system.h"

namespace pi_fusion {
namespace {

// An owned descriptor, closed when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void reset(int fd) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// openat(2) of a directory, retried on EINTR; `extra` is O_NOFOLLOW for every step of the walk.
int OpenDirAt(int dir, const char* name, int extra) {
  int fd;
  do {
    fd = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | extra);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Why `name` in `dir` could not be opened as a directory without following it.
Status RefusedStep(int dir, const std::string& name, const std::string& path, int err) {
  if (err != ELOOP && err != ENOTDIR) return FsError("open", path, err);
  struct stat st {};
  const bool link =
      ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
  return Status::Error(kFsNotDirectory,
                       path + (link ? " is a symbolic link" : " is not a directory"));
}

}  // namespace

Status CreateDirsBeneathPosix(const std::string& base, const std::vector<std::string>& names,
                              mode_t mode) {
  Fd dir(OpenDirAt(AT_FDCWD, base.c_str(), 0));
  if (dir.get() < 0) return FsError("open", base, errno);
  std::string path = base;
  for (const std::string& name : names) {
    const std::string parent = path;
    path += (path.empty() || path.back() != '/' ? "/" : "") + name;
    // mkdirat never follows a symlink at `name`: it fails with EEXIST, and the open below refuses.
    const bool created = ::mkdirat(dir.get(), name.c_str(), mode) == 0;
    if (!created && errno != EEXIST) return FsError("mkdir", path, errno);
    Fd next(OpenDirAt(dir.get(), name.c_str(), O_NOFOLLOW));
    if (next.get() < 0) return RefusedStep(dir.get(), name, path, errno);
    if (created) {
      // mkdirat applies the umask; the directory is ours, so it gets the exact mode promised.
      if (::fchmod(next.get(), mode) != 0) return FsError("chmod", path, errno);
      if (::fsync(dir.get()) != 0) return FsError("fsync", parent, errno);
    }
    dir.reset(next.release());
  }
  return Status::Ok();
}

}  // namespace pi_fusion
