// FirstRequestSignal: how the parent learns that its candidates are past their start-up.
//
// A FIFO in the private run directory; each candidate's child library writes one byte to it at the
// child's first provider request (PI_FUSION_REQUEST_SIGNAL, docs/protocol.md). The parent keeps a
// write end of its own open, so the reader never sees end-of-file while candidates come and go.
// Best effort on both sides: a missing byte only means the run does not warm its later stages.
//
// Thread-compatible: one waiter at a time; the destructor closes and unlinks the FIFO.
#pragma once

#include <memory>
#include <string>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"

namespace pi_fusion::workflow {

class FirstRequestSignal {
 public:
  // Creates the FIFO at `path` (mode 0600; nothing may exist there) and opens both ends.
  // Error code orchestration_failed.
  static Result<std::unique_ptr<FirstRequestSignal>> Create(const std::string& path);
  ~FirstRequestSignal();
  FirstRequestSignal(const FirstRequestSignal&) = delete;
  FirstRequestSignal& operator=(const FirstRequestSignal&) = delete;

  const std::string& path() const { return path_; }

  // Blocks until `count` bytes in all have arrived (true), or `stop` is cancelled or reading
  // fails (false).
  bool WaitFor(int count, const process::CancelToken& stop);

 private:
  FirstRequestSignal(std::string path, int read_fd, int write_fd)
      : path_(std::move(path)), read_fd_(read_fd), write_fd_(write_fd) {}

  std::string path_;
  int read_fd_;
  int write_fd_;
  int received_ = 0;
};

}  // namespace pi_fusion::workflow
