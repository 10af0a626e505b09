// Writing whole byte strings to an already open file descriptor (stdout, stderr, an O_APPEND
// journal). Node may have made a standard descriptor non-blocking; a write then waits for room
// rather than drop or split the bytes.
//
// Thread-safe as write(2) is; concurrent writers to one descriptor may interleave.
#pragma once

#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion {

// write(2) until all of `bytes` is written, retrying EINTR and waiting (poll) on EAGAIN. An
// error is an artifact_error "<what>: <errno text>".
Status WriteAllToFd(int fd, std::string_view bytes, const std::string& what);

}  // namespace pi_fusion
