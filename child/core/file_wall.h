// FileWall: the walls around a candidate's file tools (read, grep, find, ls), enforced where the
// file is opened, not only where its name is checked.
//
// Every object a tool touches is opened with openat2(2) beneath a descriptor of the project
// directory (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): a "..", an absolute symlink or a symlink
// that leads out fails inside the kernel, atomically, whatever is swapped in between calls. The
// object is then judged by what was opened: its real path (from the open descriptor) must not lie
// in a protected place (ProtectedReason), and its type must be a regular file or a directory
// (a FIFO, socket or device is refused without ever being opened for reading: the first open is
// O_PATH). Reading goes through the vetted descriptor (ReopenForReading), and walks start in the
// vetted directory (ProcPath), so the object vetted is the object used.
//
// Protected places (docs/tools/fusion_investigate.md lists them for users), matched on the real
// path relative to the project, component by component:
//   - Fusion's run store: any `.pi/fusion` (earlier runs' inputs and the current run's answers);
//   - Pi's own data: any `.pi/agent`, and Pi's agent directory itself (PI_CODING_AGENT_DIR) when
//     it lies inside the project;
//   - credentials: `.ssh`, `.gnupg`, `.aws`, `.azure`, `.config/gcloud`, `.kube`,
//     `.docker/config.json`, `.netrc`, `.npmrc`, `.pypirc`, `.git-credentials`, and `.env` /
//     `.env.*` except names ending in `.example`, `.sample` or `.template`.
//
// Refusals are Status errors whose code says why (kPath* below) and whose message the model sees.
// Thread-safety: a FileWall is immutable after Open; its methods may run on any thread.
#pragma once

#include <sys/types.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"

namespace pi_fusion::child {

// The audit journal's error_code of a refused file-tool call (docs/protocol.md).
inline constexpr char kPathOutsideProject[] = "path_outside_project";
inline constexpr char kPathInRunStore[] = "path_in_run_store";
inline constexpr char kPathProtected[] = "path_protected";
inline constexpr char kPathNotRegular[] = "path_not_regular";
inline constexpr char kPathNotFound[] = "path_not_found";

// The protected names, the one list ProtectedReason and the walks' exclusions (walk_tools.h) read:
// names protected at any depth (plus `.env.*`, see ProtectedReason), and two-component paths.
inline constexpr std::array<std::string_view, 10> kProtectedNames = {
    ".ssh",   ".gnupg", ".aws",    ".azure",           ".kube",
    ".netrc", ".npmrc", ".pypirc", ".git-credentials", ".env"};
inline constexpr std::array<std::string_view, 4> kProtectedPairs = {
    ".pi/fusion", ".pi/agent", ".config/gcloud", ".docker/config.json"};

// Why `relative` (a path relative to the project, '/'-separated, no "." or ".." components) is
// protected, as {code, short reason}; nullopt when it is not. `agent_dir_relative` is Pi's agent
// directory relative to the project, or empty when it lies outside. Pure.
struct Protection {
  const char* code;
  std::string reason;
};
std::optional<Protection> ProtectedReason(std::string_view relative,
                                          std::string_view agent_dir_relative);

// `path` with "." and empty parts dropped and ".." popping a part (never above the start), parts
// joined by "/", no leading or trailing slash: "/a/./b/../c/" and "a//c" both give "a/c". Pure.
std::string LexicalPath(std::string_view path);

// Pi's agent directory as Pi computes it: PI_CODING_AGENT_DIR (a leading "~" expanded) or
// ~/.pi/agent. Pure.
std::string PiAgentDir(const std::optional<std::string>& configured, const std::string& home);

// An object that passed the wall: an O_PATH descriptor of it, and what it is.
class VettedObject {
 public:
  VettedObject(int fd, std::string real_path, std::string relative, bool directory);
  ~VettedObject();
  VettedObject(VettedObject&& other) noexcept;
  VettedObject& operator=(VettedObject&&) = delete;
  VettedObject(const VettedObject&) = delete;

  int fd() const { return fd_; }
  const std::string& real_path() const { return real_path_; }
  const std::string& relative() const { return relative_; }  // "" for the project itself
  bool directory() const { return directory_; }
  // "/proc/<pid>/fd/<fd>": a name that reaches exactly this object, for a process we start
  // (its cwd, or a path argument) while the descriptor stays open here.
  std::string ProcPath() const;

 private:
  int fd_;
  std::string real_path_;
  std::string relative_;
  bool directory_;
};

enum class WallWant { kAny, kFile, kDirectory };

class FileWall {
 public:
  // `project_dir`: the directory candidates may read (the child's cwd); `agent_dir`: Pi's agent
  // directory (PiAgentDir). Fails when the project directory cannot be opened.
  static Result<std::shared_ptr<const FileWall>> Open(const std::string& project_dir,
                                                      const std::string& agent_dir);
  ~FileWall();

  // Opens the absolute path `path` beneath the project and judges what was opened. `shown` is
  // the path as the model wrote it, for the refusal text. Error codes: kPath* above.
  Result<VettedObject> Vet(const std::string& path, std::string_view shown, WallWant want) const;

  // The project-relative path of `relative_to_dir` inside the vetted directory `dir`, and whether
  // a walk must leave it out: protected, or not a regular file, directory or symlink (lstat,
  // beneath `dir`'s descriptor). For filtering what ripgrep and fd list.
  bool HiddenInWalk(const VettedObject& dir, std::string_view relative_to_dir) const;

  // Directory entries of the vetted directory `dir` that a listing may show (HiddenInWalk).
  Result<std::vector<std::string>> List(const VettedObject& dir) const;

  // A readable descriptor of the vetted regular file (O_RDONLY through its O_PATH descriptor).
  static Result<int> ReopenForReading(const VettedObject& file);

  const std::string& root() const { return root_; }

 private:
  FileWall(int root_fd, std::string root, std::string agent_dir_relative);
  std::optional<Protection> Protected(std::string_view relative) const;

  const int root_fd_;
  const std::string root_;                // real path of the project directory
  const std::string agent_dir_relative_;  // "" when the agent directory is outside the project
};

}  // namespace pi_fusion::child
