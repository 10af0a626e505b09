// The pure half of FileWall: which project-relative paths are protected, and where Pi keeps its
// own data. The descriptor work is in file_wall_posix.cc.
#include "child/core/file_wall.h"

#include <algorithm>

#include "child/core/protected_names.h"

namespace pi_fusion::child {
namespace {

std::string JoinParts(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "/") + part;
  return out;
}

bool Within(std::string_view path, std::string_view dir) {
  if (dir.empty()) return false;
  if (dir == ".") return true;
  return path == dir ||
         (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/');
}

}  // namespace

std::optional<Protection> ProtectedReason(std::string_view relative,
                                          const std::vector<ProtectedPrefix>& places,
                                          const std::vector<std::string>& extra_rows) {
  // Places compare folded too: on a case-insensitive file system `.PI/Agent` is `.pi/agent`.
  const std::vector<std::string> folded = FoldedComponents(relative);
  const std::string folded_path = JoinParts(folded);
  for (const ProtectedPrefix& place : places) {
    if (Within(folded_path,
               place.relative == "." ? "." : JoinParts(FoldedComponents(place.relative)))) {
      return Protection{kPathProtected, place.reason};
    }
  }
  for (size_t i = 0; i + 1 < folded.size(); ++i) {
    if (folded[i] == ".pi" && folded[i + 1] == "fusion") {
      return Protection{kPathInRunStore,
                        "it is Fusion's run store, which a run's children never see (earlier "
                        "runs and the other candidates' answers)"};
    }
    if (folded[i] == ".pi" && folded[i + 1] == "agent") {
      return Protection{kPathProtected, "it is Pi's agent directory (settings and credentials)"};
    }
  }
  if (std::optional<std::string> row = MatchProtectedName(folded, extra_rows)) {
    return Protection{kPathProtected, "it holds credentials (" + *row + ")"};
  }
  return std::nullopt;
}

std::string LexicalPath(std::string_view path) {
  std::vector<std::string_view> parts;
  for (std::string_view part : PathComponents(path)) {
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (part != ".") {
      parts.push_back(part);
    }
  }
  std::string out;
  for (std::string_view part : parts) {
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

std::string PiAgentDir(const std::optional<std::string>& configured, const std::string& home) {
  if (configured && !configured->empty()) {
    if (*configured == "~") return home;
    if (configured->compare(0, 2, "~/") == 0) return home + configured->substr(1);
    return *configured;
  }
  return home + "/.pi/agent";
}

}  // namespace pi_fusion::child
