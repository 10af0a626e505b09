#include "child/core/path_confinement.h"

#include "child/core/file_wall.h"

#include <array>
#include <memory>

namespace pi_fusion::child {
namespace {

// UTF-8 of the code points Pi's normalizePath turns into a plain space:
// U+00A0, U+2000..U+200A, U+202F, U+205F, U+3000.
std::string NormalizeUnicodeSpaces(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(in[i + k]); };
    const size_t left = in.size() - i;
    if (left >= 2 && b(0) == 0xC2 && b(1) == 0xA0) {
      out += ' ';
      i += 2;
    } else if (left >= 3 && b(0) == 0xE2 && b(1) == 0x80 && (b(2) <= 0x8A || b(2) == 0xAF)) {
      out += ' ';  // U+2000..U+200A, U+202F
      i += 3;
    } else if (left >= 3 && b(0) == 0xE2 && b(1) == 0x81 && b(2) == 0x9F) {
      out += ' ';  // U+205F
      i += 3;
    } else if (left >= 3 && b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80) {
      out += ' ';  // U+3000
      i += 3;
    } else {
      out += in[i++];
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> ResolveLikePi(std::string_view raw, const std::string& cwd,
                                         const std::string& home) {
  if (raw.find('\0') != std::string_view::npos) return std::nullopt;
  std::string p = NormalizeUnicodeSpaces(raw);
  if (!p.empty() && p.front() == '@') p.erase(0, 1);
  if (p == "~") {
    p = home;
  } else if (p.compare(0, 2, "~/") == 0) {
    p = home + "/" + p.substr(2);
  }
  if (p.compare(0, 7, "file://") == 0) return std::nullopt;
  if (p.empty() || p.front() != '/') p = cwd + "/" + p;
  if (p.front() != '/') return std::nullopt;  // no absolute home or cwd to anchor it
  // node's path.resolve for an absolute input: never above the root, no trailing slash.
  return "/" + LexicalPath(p);
}

std::optional<Status> RefuseToolPath(ChildEnv& env, const WallPlaces& places,
                                     const std::string& cwd, const std::string& tool,
                                     const nlohmann::json& input) {
  static constexpr std::array<std::string_view, 4> kFileTools = {"read", "grep", "find", "ls"};
  bool file_tool = false;
  for (std::string_view t : kFileTools) file_tool = file_tool || tool == t;
  if (!file_tool) return std::nullopt;

  std::string raw = ".";  // grep, find and ls default to the cwd
  if (input.is_object() && input.contains("path") && !input.at("path").is_null()) {
    if (!input.at("path").is_string()) {
      return Status::Error(kPathNotFound, "Refused: the path argument must be a string.");
    }
    raw = input.at("path").get<std::string>();
  } else if (tool == "read") {
    return Status::Error(kPathNotFound, "Refused: read needs a path.");
  }
  std::optional<std::string> resolved = ResolveLikePi(raw, cwd, env.HomeDir());
  if (!resolved) {
    return Status::Error(kPathOutsideProject, "Refused: " + tool +
                                                  " may only access files "
                                                  "inside the project directory " +
                                                  cwd + ", and \"" + raw +
                                                  "\" is not a plain file path.");
  }
  Result<std::shared_ptr<const FileWall>> wall = FileWall::Open(cwd, places);
  if (!wall.ok()) return Status::Error(wall.status().code(), "Refused: " + wall.status().message());
  // Only the walls here; a read of a directory is Pi's own error, not a refusal.
  Result<VettedObject> vetted = (*wall)->Vet(*resolved, raw, WallWant::kAny);
  if (!vetted.ok()) return vetted.status();
  return std::nullopt;
}

}  // namespace pi_fusion::child
