// FileWall: the walls around a candidate's file tools (read, grep, find, ls), enforced where the
// file is opened, not only where its name is checked.
//
// Every object a tool touches is opened with openat2(2) beneath a descriptor of the project
// directory (RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): a "..", an absolute symlink or a symlink
// that leads out fails inside the kernel, atomically, whatever is swapped in between calls. The
// object is then judged by what was opened (Vet), and its type must be a regular file or a
// directory (a FIFO, socket or device is refused without ever being opened for reading: the first
// open is O_PATH). Reading goes through the vetted descriptor (ReopenForReading), and walks start
// in the vetted directory (ProcPath), so the object vetted is the object used.
//
// An object is protected (docs/tools/fusion_investigate.md lists it all for users) when
//   - by name: a component of its real path relative to the project, folded as case-insensitive
//     file systems fold names (case_fold.h), matches the protected-names table or the env-file
//     rule (protected_names.h), or a row the user's or the project's settings add
//     (WallPlaces::extra_rows); `.pi/fusion` is the run store (kPathInRunStore);
//   - by place: it is or lies in Pi's agent directory or one of Pi's session directories inside
//     the project (WallPlaces);
//   - by identity: it, or a directory it lies in, has the (device, inode) of a protected place
//     resolved when the wall opens: the agent and session directories, the project's run store,
//     and the home directory's credential places (every table row under $HOME), so a bind mount,
//     a case-folded alias or another name of the same directory is the same place;
//   - by content: a regular file whose first kSecretHeadBytes hold a private key
//     (secret_content.h HoldsPrivateKey);
//   - by its other names: a regular file with more than one hard link, unless (a) it lies under a
//     `.git/objects` directory and its first bytes are a git object's (LooksLikeGitObject), or
//     (b) all of its links are names in its own directory and none of them is protected. Any
//     other hard-linked file could be a protected file's other name, which no lookup can rule
//     out, so it is refused (in listings it is left out).
// Files that may hold credentials in URLs (`.git/config`, `.gitmodules`, …: IsRedactedFile) are
// read with every URL's userinfo replaced by `***` (ReopenForReading), and grep leaves out their
// lines that hold any (a match must not tell what the secret holds).
//
// Refusals are Status errors whose code says why (kPath* below) and whose message the model sees.
// Thread-safety: a FileWall is immutable after Open; its methods may run on any thread.
#pragma once

#include <sys/stat.h>
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

// What a wall protects besides the built-in names (protected_places.h resolves it at the child's
// start). Paths are absolute; a place that does not exist is skipped.
struct WallPlaces {
  std::string agent_dir;                  // Pi's agent directory (PiAgentDir)
  std::vector<std::string> session_dirs;  // Pi's session directories, however Pi learns them
  std::string home;                       // its credential places are protected by identity
  std::vector<std::string> extra_rows;    // protected-name rows added by settings
};

struct Protection {
  const char* code;
  std::string reason;
};

// A protected place inside the project, as a project-relative path ("." for the project itself).
struct ProtectedPrefix {
  std::string relative;
  std::string reason;
};

// Why `relative` (a path relative to the project, '/'-separated, no "." or ".." components) is
// protected by name or place, as {code, short reason}; nullopt when it is not. Pure.
std::optional<Protection> ProtectedReason(std::string_view relative,
                                          const std::vector<ProtectedPrefix>& places,
                                          const std::vector<std::string>& extra_rows);

// `path` with "." and empty parts dropped and ".." popping a part (never above the start), parts
// joined by "/", no leading or trailing slash: "/a/./b/../c/" and "a//c" both give "a/c". Pure.
std::string LexicalPath(std::string_view path);

// Pi's agent directory as Pi computes it: PI_CODING_AGENT_DIR (a leading "~" expanded) or
// ~/.pi/agent. Pure.
std::string PiAgentDir(const std::optional<std::string>& configured, const std::string& home);

// An object that passed the wall: an O_PATH descriptor of it, and what it is.
class VettedObject {
 public:
  VettedObject(int fd, std::string real_path, std::string relative, bool directory,
               bool redacted = false);
  ~VettedObject();
  VettedObject(VettedObject&& other) noexcept;
  VettedObject& operator=(VettedObject&&) = delete;
  VettedObject(const VettedObject&) = delete;

  int fd() const { return fd_; }
  const std::string& real_path() const { return real_path_; }
  const std::string& relative() const { return relative_; }  // "" for the project itself
  bool directory() const { return directory_; }
  // A file read with URL userinfo redacted (IsRedactedFile).
  bool redacted() const { return redacted_; }
  // "/proc/<pid>/fd/<fd>": a name that reaches exactly this object, for a process we start
  // (its cwd, or a path argument) while the descriptor stays open here.
  std::string ProcPath() const;

 private:
  int fd_;
  std::string real_path_;
  std::string relative_;
  bool directory_;
  bool redacted_;
};

enum class WallWant { kAny, kFile, kDirectory };

class FileWall {
 public:
  // `project_dir`: the directory candidates may read (the child's cwd); `places`: what it protects
  // besides the built-in names. Fails when the project directory cannot be opened.
  static Result<std::shared_ptr<const FileWall>> Open(const std::string& project_dir,
                                                      const WallPlaces& places);
  ~FileWall();

  // Opens the absolute path `path` beneath the project and judges what was opened. `shown` is
  // the path as the model wrote it, for the refusal text. Error codes: kPath* above.
  Result<VettedObject> Vet(const std::string& path, std::string_view shown, WallWant want) const;

  // Whether a walk must leave out `relative_to_dir` inside the vetted directory `dir`: protected
  // by name, place or identity, a hard-linked file (see above), or not a regular file, directory
  // or symlink (lstat, beneath `dir`'s descriptor). With `WalkCheck::kContent` (grep, which shows
  // what files hold) a regular file is also opened and judged by its first bytes. For filtering
  // what ripgrep and fd list.
  enum class WalkCheck { kNames, kContent };
  bool HiddenInWalk(const VettedObject& dir, std::string_view relative_to_dir,
                    WalkCheck check = WalkCheck::kNames) const;
  // Whether the file `relative_to_dir` inside `dir` is read redacted (IsRedactedFile). Pure.
  bool RedactedInWalk(const VettedObject& dir, std::string_view relative_to_dir) const;

  // Directory entries of the vetted directory `dir` that a listing may show (HiddenInWalk).
  Result<std::vector<std::string>> List(const VettedObject& dir) const;

  // A readable descriptor of the vetted regular file (O_RDONLY through its O_PATH descriptor),
  // judged again by its first bytes. For a redacted file, a memory file holding its redacted
  // text (files over kMaxRedactedBytes are refused).
  static Result<int> ReopenForReading(const VettedObject& file);

  const std::string& root() const { return root_; }

 private:
  struct Identity {
    dev_t dev;
    ino_t ino;
    std::string reason;
  };
  FileWall(int root_fd, std::string root, std::vector<ProtectedPrefix> places,
           std::vector<Identity> identities, std::vector<std::string> extra_rows);
  std::optional<Protection> Protected(std::string_view relative) const;
  // Protection by identity of the object `fd` (project-relative `relative`) or of a directory
  // between it and its already vetted ancestor `vetted_ancestor` (project-relative, "" for the
  // project); by its content (`head`: its first bytes, when read); by its other names when it is
  // a hard-linked file.
  std::optional<Protection> ProtectedObject(int fd, const std::string& relative,
                                            const std::string& vetted_ancestor,
                                            const std::optional<std::string>& head) const;
  std::optional<Protection> HardLinkRefusal(const struct stat& st, const std::string& relative,
                                            const std::optional<std::string>& head) const;

  const int root_fd_;
  const std::string root_;                     // real path of the project directory
  const std::vector<ProtectedPrefix> places_;  // agent and session directories inside the project
  const std::vector<Identity> identities_;
  const std::vector<std::string> extra_rows_;
};

// The largest file read redacted; a larger one is refused.
inline constexpr size_t kMaxRedactedBytes = 1 << 20;

}  // namespace pi_fusion::child
