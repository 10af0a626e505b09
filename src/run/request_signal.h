// FirstRequestSignal: how the parent learns that its candidates are past their start-up.
//
// A private pipe, named in no file system: each candidate inherits a copy of its write end as
// descriptor kChildFd (PI_FUSION_REQUEST_SIGNAL_FD, docs/protocol.md), and its child library
// writes one byte to it at the child's first provider request and closes it. The parent keeps a
// write end of its own open, so the reader never sees end-of-file while candidates come and go.
// Nothing of it can outlive the processes that hold it: a killed host leaves no FIFO behind in
// the project (an earlier FIFO in the run directory did, and a candidate's `read` of it blocked).
// Best effort on both sides: a missing byte only means the run does not warm its later stages.
//
// Thread-compatible: one waiter at a time; the destructor closes both ends.
#pragma once

#include <memory>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"

namespace pi_fusion::run {

class FirstRequestSignal {
 public:
  // The descriptor number the write end gets in each candidate (ChildSpec::inherit_fds[0]).
  static constexpr int kChildFd = 3;

  // Makes the pipe: both ends close-on-exec, both non-blocking (a child's write never waits).
  // Error code orchestration_failed.
  static Result<std::unique_ptr<FirstRequestSignal>> Create();
  ~FirstRequestSignal();
  FirstRequestSignal(const FirstRequestSignal&) = delete;
  FirstRequestSignal& operator=(const FirstRequestSignal&) = delete;

  // The write end, for ChildSpec::inherit_fds; open until this object is destroyed.
  int write_fd() const { return write_fd_; }

  // Blocks until `count` bytes in all have arrived (true), or `stop` is cancelled or reading
  // fails (false).
  bool WaitFor(int count, const process::CancelToken& stop);

 private:
  FirstRequestSignal(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}

  int read_fd_;
  int write_fd_;
  int received_ = 0;
};

}  // namespace pi_fusion::run
