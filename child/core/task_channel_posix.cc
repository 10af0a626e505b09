// TaskRecordReader over the inherited task pipe: poll(2) and read(2), never past what one record
// needs beyond the bytes already buffered.
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "child/core/task_mode.h"
#include "core/env_vars.h"
#include "core/error_codes.h"

namespace pi_fusion::child {
namespace {

Status Fail(const std::string& what) {
  return Status::Error(kConfigInvalid, "pi-fusion child: no task record on " +
                                           std::string(env_vars::kTaskFd) + ": " + what);
}

}  // namespace

Result<std::string> TaskRecordReader::ReadLine(int timeout_ms) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (size_t nl = pending_.find('\n'); nl != std::string::npos) {
      if (nl + 1 > pooled_task::kMaxRecordBytes) {
        pending_.clear();
        return Fail("the record is longer than its limit");
      }
      std::string line = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return line;
    }
    if (pending_.size() >= pooled_task::kMaxRecordBytes) {
      pending_.clear();
      return Fail("the record is longer than its limit");
    }
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return Fail("none arrived in time");
    pollfd p{.fd = fd_, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0) {
      if (errno == EINTR) continue;
      return Fail(std::strerror(errno));
    }
    if (ready == 0) continue;  // the deadline check above ends the wait
    if ((p.revents & POLLNVAL) != 0) return Fail("the descriptor is not open");
    char buffer[4096];
    const size_t room = pooled_task::kMaxRecordBytes - pending_.size();
    const ssize_t n = ::read(fd_, buffer, std::min(sizeof buffer, room));
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Fail(std::strerror(errno));
    }
    if (n == 0) return Fail("the pipe was closed");
    pending_.append(buffer, static_cast<size_t>(n));
  }
}

}  // namespace pi_fusion::child
