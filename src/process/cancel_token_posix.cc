#include <fcntl.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/eventfd.h>
#endif

#include <atomic>
#include <cerrno>
#include <cstdint>

#include "process/cancel_token.h"
#include "process/posix_util.h"

namespace pi_fusion::process {

// The descriptor is never read: once written it stays readable, so any number of poll loops
// (one per child of a run) see the cancellation, now or whenever they next poll.
struct CancelToken::State {
  std::atomic<bool> cancelled{false};
  int read_fd = -1;
  int write_fd = -1;  // == read_fd for an eventfd

  ~State() {
    if (write_fd >= 0 && write_fd != read_fd) close(write_fd);
    if (read_fd >= 0) close(read_fd);
  }
};

Result<CancelToken> CancelToken::Create() {
  auto state = std::make_shared<State>();
#if defined(__linux__)
  int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) {
    return Status::Error("orchestration_failed", "eventfd for cancellation: " + ErrnoText(errno));
  }
  state->read_fd = state->write_fd = fd;
#else
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
    return Status::Error("orchestration_failed", "pipe for cancellation: " + ErrnoText(errno));
  }
  state->read_fd = fds[0];
  state->write_fd = fds[1];
#endif
  return CancelToken(std::move(state));
}

void CancelToken::Cancel() const {
  if (!state_ || state_->cancelled.exchange(true)) return;
  // Only the first Cancel() writes, so the eventfd counter or pipe can never fill up; a failed
  // write is impossible on a fresh descriptor short of EBADF, which would be our own bug.
  const uint64_t one = 1;
  ssize_t n;
  do {
    n = write(state_->write_fd, &one, sizeof(one));
  } while (n < 0 && errno == EINTR);
}

bool CancelToken::IsCancelled() const { return state_ && state_->cancelled.load(); }

int CancelToken::wait_fd() const { return state_ ? state_->read_fd : -1; }

}  // namespace pi_fusion::process
