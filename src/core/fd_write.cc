#include "core/fd_write.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "core/error_codes.h"
#include "core/file_system.h"

namespace pi_fusion {

Status WriteAllToFd(int fd, std::string_view bytes, const std::string& what) {
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
    return Status::Error(kArtifactError, what + ": " + ErrnoText(errno));
  }
  return Status::Ok();
}

}  // namespace pi_fusion
