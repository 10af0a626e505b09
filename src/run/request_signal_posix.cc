#include "run/request_signal.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "core/file_system.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::run {

Result<std::unique_ptr<FirstRequestSignal>> FirstRequestSignal::Create() {
  int fds[2];
  // O_NONBLOCK is on the open file description, which the children's copies share: a child's
  // one-byte write never waits, whatever the parent does.
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Status::Error(std::string(kOrchestrationFailed),
                         "creating the first-request pipe: " + ErrnoText(errno));
  }
  return std::unique_ptr<FirstRequestSignal>(new FirstRequestSignal(fds[0], fds[1]));
}

FirstRequestSignal::~FirstRequestSignal() {
  close(read_fd_);
  close(write_fd_);
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

}  // namespace pi_fusion::run
