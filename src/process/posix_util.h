// Small POSIX helpers shared by the process layer's *_posix.cc files. Internal; thread-safe.
#pragma once

#include <string>
#include <system_error>

namespace pi_fusion::process {

// "No such file or directory (errno 2)": thread-safe, unlike strerror().
inline std::string ErrnoText(int err) {
  return std::error_code(err, std::generic_category()).message() + " (errno " +
         std::to_string(err) + ")";
}

}  // namespace pi_fusion::process
