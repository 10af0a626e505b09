#include "child/core/protected_places.h"

#include <nlohmann/json.hpp>

#include "core/env_vars.h"

namespace pi_fusion::child {
namespace {

constexpr uint64_t kSettingsMaxBytes = 1 << 20;

// A path as Pi would take it: "~" expanded, a relative one from the project.
std::string Anchor(const std::string& path, const std::string& cwd, const std::string& home) {
  if (path.empty()) return "";
  std::string p = path;
  if (p == "~") p = home;
  if (p.compare(0, 2, "~/") == 0) p = home + p.substr(1);
  if (p.empty() || p.front() != '/') p = cwd + "/" + p;
  return p;
}

std::string SettingsSessionDir(FileSystem& fs, const std::string& settings_path) {
  Result<std::string> text = fs.ReadFileFollowingLink(settings_path, kSettingsMaxBytes);
  if (!text.ok()) return "";
  nlohmann::json settings = nlohmann::json::parse(*text, nullptr, false);
  if (!settings.is_object() || !settings.contains("sessionDir") ||
      !settings["sessionDir"].is_string()) {
    return "";
  }
  return settings["sessionDir"].get<std::string>();
}

void AddRows(FileSystem& fs, const std::string& path, std::vector<std::string>* rows) {
  Result<std::string> text = fs.ReadFileFollowingLink(path, kSettingsMaxBytes);
  if (!text.ok()) return;
  for (std::string& row : ParseProtectedRows(*text)) rows->push_back(std::move(row));
}

}  // namespace

std::vector<std::string> ParseProtectedRows(std::string_view text) {
  std::vector<std::string> rows;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
      line.pop_back();
    }
    size_t lead = line.find_first_not_of(" \t");
    line = lead == std::string::npos ? "" : line.substr(lead);
    if (line.empty() || line.front() == '#' || line.front() == '/') continue;
    if (line.find('\0') != std::string::npos) continue;
    bool plain = true;
    for (size_t i = 0; i <= line.size() && plain;) {
      size_t slash = line.find('/', i);
      if (slash == std::string::npos) slash = line.size();
      const std::string part = line.substr(i, slash - i);
      plain = !part.empty() && part != "." && part != "..";
      i = slash + 1;
    }
    if (plain) rows.push_back(line);
  }
  return rows;
}

WallPlaces ResolveWallPlaces(const EnvLookup& lookup, FileSystem& fs, const std::string& cwd,
                             const std::string& agent_dir, const std::string& home) {
  WallPlaces places;
  places.agent_dir = agent_dir;
  places.home = home;
  auto add_session = [&](const std::string& dir) {
    const std::string anchored = Anchor(dir, cwd, home);
    if (!anchored.empty()) places.session_dirs.push_back(anchored);
  };
  add_session(lookup(env_vars::kSessionDir).value_or(""));
  add_session(lookup("PI_CODING_AGENT_SESSION_DIR").value_or(""));
  add_session(SettingsSessionDir(fs, cwd + "/.pi/settings.json"));
  add_session(SettingsSessionDir(fs, agent_dir + "/settings.json"));
  add_session(agent_dir + "/sessions");
  AddRows(fs, agent_dir + "/fusion-protected", &places.extra_rows);
  AddRows(fs, cwd + "/.pi/fusion-protected", &places.extra_rows);
  return places;
}

}  // namespace pi_fusion::child
