// The pure half of FileWall: which project-relative paths are protected, and where Pi keeps its
// own data. The descriptor work is in file_wall_posix.cc.
#include "child/core/file_wall.h"

#include <algorithm>

namespace pi_fusion::child {
namespace {

std::vector<std::string_view> Components(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t end = path.find('/', i);
    if (end == std::string_view::npos) end = path.size();
    if (end > i) parts.push_back(path.substr(i, end - i));
    i = end + 1;
  }
  return parts;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// `.env` and `.env.*`, except the documented example files.
bool IsEnvFile(std::string_view name) {
  if (name == ".env") return true;
  if (name.substr(0, 5) != ".env.") return false;
  return !EndsWith(name, ".example") && !EndsWith(name, ".sample") && !EndsWith(name, ".template");
}

bool IsCredentialName(std::string_view name) {
  for (std::string_view n : kProtectedNames) {
    if (name == n) return true;
  }
  return IsEnvFile(name);
}

bool Within(std::string_view path, std::string_view dir) {
  if (dir.empty()) return false;
  return path == dir ||
         (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/');
}

}  // namespace

std::optional<Protection> ProtectedReason(std::string_view relative,
                                          std::string_view agent_dir_relative) {
  if (Within(relative, agent_dir_relative)) {
    return Protection{kPathProtected, "it is Pi's agent directory (settings and credentials)"};
  }
  const std::vector<std::string_view> parts = Components(relative);
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string_view next = i + 1 < parts.size() ? parts[i + 1] : std::string_view();
    if (parts[i] == ".pi" && next == "fusion") {
      return Protection{kPathInRunStore,
                        "it is Fusion's run store, which candidates never see (earlier runs and "
                        "the other candidates' answers)"};
    }
    if (parts[i] == ".pi" && next == "agent") {
      return Protection{kPathProtected, "it is Pi's agent directory (settings and credentials)"};
    }
    const std::string pair = std::string(parts[i]) + "/" + std::string(next);
    const bool protected_pair =
        std::find(kProtectedPairs.begin(), kProtectedPairs.end(), pair) != kProtectedPairs.end();
    if (IsCredentialName(parts[i]) || protected_pair) {
      return Protection{kPathProtected, "it holds credentials (" + std::string(parts[i]) + ")"};
    }
  }
  return std::nullopt;
}

std::string LexicalPath(std::string_view path) {
  std::vector<std::string_view> parts;
  for (std::string_view part : Components(path)) {
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
