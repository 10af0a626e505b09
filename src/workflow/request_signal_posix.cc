#include "workflow/request_signal.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/file_system.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {

Result<std::unique_ptr<FirstRequestSignal>> FirstRequestSignal::Create(const std::string& path) {
  auto failed = [&](const char* what, int err) {
    return Status::Error(std::string(kOrchestrationFailed),
                         std::string(what) + " " + path + ": " + ErrnoText(err));
  };
  if (mkfifo(path.c_str(), 0600) != 0) return failed("creating the FIFO", errno);
  // The read end first and non-blocking, so opening our own write end cannot block.
  const int read_fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (read_fd < 0) {
    const int err = errno;
    unlink(path.c_str());
    return failed("opening the FIFO", err);
  }
  const int write_fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (write_fd < 0) {
    const int err = errno;
    close(read_fd);
    unlink(path.c_str());
    return failed("opening the FIFO", err);
  }
  return std::unique_ptr<FirstRequestSignal>(new FirstRequestSignal(path, read_fd, write_fd));
}

FirstRequestSignal::~FirstRequestSignal() {
  close(read_fd_);
  close(write_fd_);
  unlink(path_.c_str());
}

bool FirstRequestSignal::WaitFor(int count, const process::CancelToken& stop) {
  while (received_ < count) {
    if (stop.IsCancelled()) return false;
    pollfd fds[2] = {{read_fd_, POLLIN, 0}, {stop.wait_fd(), POLLIN, 0}};
    const int ready = poll(fds, stop.wait_fd() >= 0 ? 2 : 1, -1);
    if (ready < 0 && errno != EINTR) return false;
    if (ready <= 0 || !(fds[0].revents & POLLIN)) continue;
    char bytes[16];
    const ssize_t n = read(read_fd_, bytes, sizeof(bytes));
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    if (n > 0) received_ += static_cast<int>(n);
  }
  return true;
}

}  // namespace pi_fusion::workflow
