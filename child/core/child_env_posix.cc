#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>

#include "child/core/child_env.h"
#include "core/durable_file.h"
#include "core/fd_write.h"
#include "core/file_system.h"

namespace pi_fusion::child {
namespace {

Status Errno(const std::string& what, int err) {
  return Status::Error(kArtifactError, what + ": " + ErrnoText(err));
}

bool IsPipe(int fd) {
  struct stat st {};
  return fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

class PosixChildEnv : public ChildEnv {
 public:
  Status WriteStderrLine(std::string_view line) override {
    return WriteAllToFd(STDERR_FILENO, line, "write to stderr");
  }

  Status WriteFileDurably(const std::string& path, std::string_view bytes) override {
    return pi_fusion::WriteFileDurably(PosixFileSystem(), path, bytes, kPrivateFileMode);
  }

  Status CreateFileExclusive(const std::string& path) override {
    Result<std::unique_ptr<WritableFile>> file =
        PosixFileSystem().CreateExclusive(path, kPrivateFileMode);
    if (!file.ok()) return Status::Error(kArtifactError, file.status().message());
    Status s = (*file)->Sync();
    Status closed = (*file)->Close();
    if (s.ok()) s = closed;
    if (s.ok()) s = PosixFileSystem().SyncDir(DirName(path));
    return s.ok() ? s : Status::Error(kArtifactError, s.message());
  }

  Status AppendDurably(const std::string& path, std::string_view bytes) override {
    const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return Errno("open " + path, errno);
    Status s = WriteAllToFd(fd, bytes, "append to " + path);
    if (s.ok() && ::fsync(fd) != 0) s = Errno("fsync " + path, errno);
    // Linux releases the descriptor even when close fails, so it is never retried.
    if (::close(fd) != 0 && s.ok()) s = Errno("close " + path, errno);
    return s;
  }

  std::string HomeDir() override {
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return home;
    long size = ::sysconf(_SC_GETPW_R_SIZE_MAX);
    std::string buffer(size > 0 ? static_cast<size_t>(size) : 16384, '\0');
    passwd entry{};
    passwd* found = nullptr;
    if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) == 0 && found) {
      return found->pw_dir;
    }
    return "";
  }

  void KeepSignalPrivate(int fd) override {
    if (IsPipe(fd)) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
  }

  void SignalAndClose(int fd) override {
    // Only the pipe the parent passed: a descriptor number the parent did not fill is never
    // written to (it could be anything Pi opened). The parent made the pipe non-blocking.
    if (!IsPipe(fd)) return;
    (void)!write(fd, "r", 1);
    close(fd);
  }

  const Clock& clock() override { return SystemClock(); }
};

}  // namespace

std::unique_ptr<ChildEnv> NewPosixChildEnv() { return std::make_unique<PosixChildEnv>(); }

}  // namespace pi_fusion::child
