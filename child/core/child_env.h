// ChildEnv: the child library's seam to the operating system (leveldb `Env` style).
//
// The governor writes its stderr lines and preserves the oversized original only through this
// interface, so unit tests capture frames in memory and inject write failures. The POSIX env writes
// frames to file descriptor 2 with write(2) and files with the core's WriteFileDurably (temp +
// fsync + rename + directory fsync).
//
// Thread-safety: the governor calls it from Node's JS thread only; the POSIX env holds no state.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion::child {

class ChildEnv {
 public:
  virtual ~ChildEnv() = default;

  // Writes one whole line (a frame, or a diagnostic for Pi's stderr) to stderr, synchronously and
  // in one piece: a line is never split across calls.
  virtual Status WriteStderrLine(std::string_view line) = 0;

  // Makes `bytes` the durable content of `path`: written to a private temp file in the same
  // directory (mode 0600), fsynced, renamed over `path`, and the directory fsynced. On error the
  // temp file is removed and `path` is untouched. Error code "artifact_error".
  virtual Status WriteFileDurably(const std::string& path, std::string_view bytes) = 0;
};

// The production env. Frames go to descriptor 2 (never stdout: Pi's text mode owns it).
std::unique_ptr<ChildEnv> NewPosixChildEnv();

}  // namespace pi_fusion::child
