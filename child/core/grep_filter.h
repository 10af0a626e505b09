// GrepFilter: which of ripgrep's lines a candidate's grep may show. A line is left out when its
// file lies behind the wall (FileWall::HiddenInWalk with the content check: by name, place,
// identity, private-key content or hard links), and when its file is one read redacted
// (`.git/config`, …) and the line holds a URL's userinfo: showing it redacted would still tell
// that the secret matched the pattern. Each file is judged once per search.
//
// Not thread-safe: one per grep call, used on one thread.
#pragma once

#include <map>
#include <string>

#include "child/core/file_wall.h"

namespace pi_fusion::child {

class GrepFilter {
 public:
  // `start`: the vetted directory ripgrep searched, or the vetted file it searched alone.
  // REQUIRES: both outlive the filter.
  GrepFilter(const FileWall& wall, const VettedObject& start) : wall_(wall), start_(start) {}

  // `path`: the file as ripgrep printed it; `text`: the line.
  bool Hidden(const std::string& path, const std::string& text);

 private:
  struct Verdict {
    bool hidden = false;
    bool redacted = false;
  };
  const FileWall& wall_;
  const VettedObject& start_;
  std::map<std::string, Verdict> seen_;
};

}  // namespace pi_fusion::child
