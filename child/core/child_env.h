// ChildEnv: the child library's seam to the operating system (leveldb `Env` style).
//
// The governor writes its stderr lines, preserves the oversized original, appends the tool-call
// journal and reads the clock only through this interface, so unit tests
// capture frames and files in memory and inject write failures. The POSIX env writes frames to
// file descriptor 2 with write(2), whole files with the core's WriteFileDurably (temp + fsync +
// rename + directory fsync), and journal lines with O_APPEND write(2) + fsync(2).
//
// Thread-safety: the governor calls it from Node's JS thread only; the POSIX env holds no state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/clock.h"
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

  // Creates `path` empty with mode 0600, failing if anything exists there (O_EXCL, never through
  // a symlink), and fsyncs it and its directory. Error code "artifact_error".
  virtual Status CreateFileExclusive(const std::string& path) = 0;
  // Appends `bytes` to the existing file `path` in one write and fsyncs it before returning, so a
  // line that was reported written survives a crash. Error code "artifact_error".
  virtual Status AppendDurably(const std::string& path, std::string_view bytes) = 0;

  // The home directory Pi expands "~" to (os.homedir(): $HOME, else the password entry).
  virtual std::string HomeDir() = 0;
  // An inherited pipe `fd` (the first-request descriptor PI_FUSION_REQUEST_SIGNAL_FD, a pooled
  // child's task pipe PI_FUSION_TASK_FD), at load: made close-on-exec, so the processes Pi starts
  // for tools (ripgrep, fd, the fetcher) never inherit it. Nothing happens when `fd` is not a pipe.
  virtual void KeepSignalPrivate(int fd) = 0;
  // Writes one byte to the pipe `fd` without blocking and closes it: the parent's signal that
  // this child is past its start-up. Best effort by design: no reader, a full pipe, a descriptor
  // that is not a pipe (nothing is written then) or any other error changes nothing for the child
  // (the parent then simply does not warm).
  virtual void SignalAndClose(int fd) = 0;
  // The time seam (core/clock.h); its Now() times tool calls.
  virtual const Clock& clock() = 0;
};

// The production env. Frames go to descriptor 2 (never stdout: Pi's text mode owns it).
std::unique_ptr<ChildEnv> NewPosixChildEnv();

}  // namespace pi_fusion::child
