#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "child/core/child_env.h"
#include "core/durable_file.h"
#include "core/file_system.h"

namespace pi_fusion::child {
namespace {

Status Errno(const std::string& what, int err) {
  return Status::Error(kArtifactError, what + ": " + ErrnoText(err));
}

// write(2) until done. Node may have made the descriptor non-blocking; then wait for room rather
// than drop or split the frame.
Status WriteAll(int fd, std::string_view bytes, const std::string& what) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n >= 0) {
      bytes.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    return Errno(what, errno);
  }
  return Status::Ok();
}

class PosixChildEnv : public ChildEnv {
 public:
  Status WriteStderrLine(std::string_view line) override {
    return WriteAll(STDERR_FILENO, line, "write to stderr");
  }

  Status WriteFileDurably(const std::string& path, std::string_view bytes) override {
    return pi_fusion::WriteFileDurably(PosixFileSystem(), path, bytes, kPrivateFileMode);
  }
};

}  // namespace

std::unique_ptr<ChildEnv> NewPosixChildEnv() { return std::make_unique<PosixChildEnv>(); }

}  // namespace pi_fusion::child
