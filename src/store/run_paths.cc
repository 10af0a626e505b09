#include "store/run_paths.h"

#include "core/durable_file.h"
#include "store/constants.h"

namespace pi_fusion::store {
namespace {

bool IsPortableNameByte(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

std::string JoinPath(const std::string& dir, std::string_view name) {
  if (!dir.empty() && dir.back() == '/') return dir + std::string(name);
  return dir + "/" + std::string(name);
}

}  // namespace

std::string SanitizeSessionId(std::string_view session_id) {
  std::string out;
  for (char c : session_id.substr(0, kSessionIdMaxBytes)) {
    out.push_back(IsPortableNameByte(c) ? c : '_');
  }
  if (out.empty()) return "session";
  if (out.front() == '.') out.front() = '_';
  return out;
}

std::string SessionDirName(std::string_view session_id, long pid) {
  return SanitizeSessionId(session_id) + "-" + std::to_string(pid);
}

std::vector<std::string> SessionDirSteps(std::string_view session_id, long pid) {
  std::vector<std::string> steps;
  std::string_view root = kRunsRoot;
  for (size_t slash; (slash = root.find('/')) != std::string_view::npos;
       root.remove_prefix(slash + 1)) {
    steps.emplace_back(root.substr(0, slash));
  }
  steps.emplace_back(root);
  steps.push_back(SessionDirName(session_id, pid));
  return steps;
}

std::string RunDirectory(const std::string& cwd, std::string_view session_id, long pid,
                         std::string_view run_id) {
  return JoinPath(JoinPath(JoinPath(cwd, kRunsRoot), SessionDirName(session_id, pid)), run_id);
}

Status ValidateArtifactName(std::string_view name) {
  auto refuse = [&](const char* why) {
    return Status::Error(
        kArtifactError,
        "artifact name \"" + std::string(name.substr(0, kArtifactNameMaxBytes)) + "\" " + why);
  };
  if (name.empty()) return refuse("is empty");
  if (name.size() > kArtifactNameMaxBytes) return refuse("is too long");
  if (name.front() == '.') return refuse("starts with '.'");
  for (char c : name) {
    if (c == '/') return refuse("is not a plain basename");
    if (!IsPortableNameByte(c)) return refuse("contains a byte outside [A-Za-z0-9._-]");
  }
  return Status::Ok();
}

std::string ArtifactPath(const std::string& run_dir, std::string_view name) {
  return JoinPath(run_dir, name);
}

}  // namespace pi_fusion::store
