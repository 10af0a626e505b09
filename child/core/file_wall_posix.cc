// FileWall's descriptor work: openat2 beneath the project, judging the opened object, and the
// listings and re-opens that go through vetted descriptors only.
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "child/core/file_wall.h"

namespace pi_fusion::child {
namespace {

int OpenBeneath(int dir_fd, const std::string& relative, uint64_t flags, uint64_t resolve) {
  struct open_how how = {};
  how.flags = flags | O_CLOEXEC;
  how.resolve = resolve;
  for (int attempt = 0;; ++attempt) {
    // EAGAIN: a rename or mount raced with the lookup; the kernel asks for a retry.
    long fd = ::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
    if (fd >= 0 || errno != EAGAIN || attempt == 8) return static_cast<int>(fd);
  }
}

struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
  int Release() { return std::exchange(fd, -1); }
};

// The path the kernel holds for an open descriptor.
std::optional<std::string> PathOfFd(int fd) {
  std::string link = "/proc/self/fd/" + std::to_string(fd);
  std::string out(4096, '\0');
  ssize_t n = ::readlink(link.c_str(), out.data(), out.size());
  if (n <= 0 || static_cast<size_t>(n) >= out.size()) return std::nullopt;
  out.resize(static_cast<size_t>(n));
  return out;
}

// `path` relative to `root` ("" for root itself), or nullopt when it is not inside.
std::optional<std::string> RelativeTo(const std::string& root, const std::string& path) {
  if (path == root) return std::string();
  if (root == "/") return path.substr(1);
  if (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
      path[root.size()] == '/') {
    return path.substr(root.size() + 1);
  }
  return std::nullopt;
}

std::string Join(const std::string& dir, std::string_view rest) {
  const std::string tail = LexicalPath(rest);
  if (dir.empty()) return tail;
  return tail.empty() ? dir : dir + "/" + tail;
}

}  // namespace

VettedObject::VettedObject(int fd, std::string real_path, std::string relative, bool directory)
    : fd_(fd),
      real_path_(std::move(real_path)),
      relative_(std::move(relative)),
      directory_(directory) {}

VettedObject::~VettedObject() {
  if (fd_ >= 0) ::close(fd_);
}

VettedObject::VettedObject(VettedObject&& other) noexcept
    : fd_(other.fd_),
      real_path_(std::move(other.real_path_)),
      relative_(std::move(other.relative_)),
      directory_(other.directory_) {
  other.fd_ = -1;
}

std::string VettedObject::ProcPath() const {
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
}

FileWall::FileWall(int root_fd, std::string root, std::string agent_dir_relative)
    : root_fd_(root_fd),
      root_(std::move(root)),
      agent_dir_relative_(std::move(agent_dir_relative)) {}

FileWall::~FileWall() { ::close(root_fd_); }

Result<std::shared_ptr<const FileWall>> FileWall::Open(const std::string& project_dir,
                                                       const std::string& agent_dir) {
  const int fd = ::open(project_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  std::optional<std::string> root = fd >= 0 ? PathOfFd(fd) : std::nullopt;
  if (!root) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return Status::Error(kPathNotFound, "the project directory " + project_dir +
                                            " cannot be opened: " + std::strerror(err));
  }
  std::string agent_relative;
  if (char* real = ::realpath(agent_dir.c_str(), nullptr)) {
    agent_relative = RelativeTo(*root, real).value_or("");
    if (agent_relative.empty() && std::string(real) == *root) agent_relative = ".";
    std::free(real);
  }
  // An agent directory that is the project itself protects everything: keep it as "." so that
  // Within() matches every path (see Protected).
  return std::shared_ptr<const FileWall>(new FileWall(fd, *root, agent_relative));
}

std::optional<Protection> FileWall::Protected(std::string_view relative) const {
  if (agent_dir_relative_ == ".") {
    return Protection{kPathProtected, "the project is Pi's agent directory"};
  }
  return ProtectedReason(relative, agent_dir_relative_);
}

Result<VettedObject> FileWall::Vet(const std::string& path, std::string_view shown,
                                   WallWant want) const {
  const std::string refused = "Refused: \"" + std::string(shown) + "\" ";
  std::optional<std::string> lexical = RelativeTo(root_, "/" + LexicalPath(path));
  if (!lexical) {
    return Status::Error(kPathOutsideProject, refused + "is outside the project directory " +
                                                  root_ +
                                                  "; candidates may only read files inside it.");
  }
  if (std::optional<Protection> p = Protected(*lexical)) {
    return Status::Error(p->code, refused + "may not be read: " + p->reason + ".");
  }
  const int fd = OpenBeneath(root_fd_, lexical->empty() ? "." : *lexical, O_PATH,
                             RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT || err == ENOTDIR) {
      return Status::Error(kPathNotFound, refused + "does not exist in the project directory.");
    }
    if (err == EXDEV || err == ELOOP) {
      return Status::Error(kPathOutsideProject,
                           refused + "resolves outside the project directory " + root_ +
                               " (through \"..\" or a symlink); candidates may only read "
                               "files inside it.");
    }
    if (err == ENOSYS) {
      return Status::Error(kPathOutsideProject,
                           refused +
                               "cannot be opened safely: this kernel has no openat2 "
                               "(Linux 5.6 or newer is needed).");
    }
    return Status::Error(kPathNotFound, refused + "cannot be opened: " + std::strerror(err));
  }
  FdGuard guard{fd};
  std::optional<std::string> real = PathOfFd(fd);
  std::optional<std::string> relative = real ? RelativeTo(root_, *real) : std::nullopt;
  if (!relative) {
    return Status::Error(kPathOutsideProject, refused + "resolves outside the project directory.");
  }
  if (std::optional<Protection> p = Protected(*relative)) {
    return Status::Error(p->code, refused + "may not be read: " + p->reason + ".");
  }
  struct stat st = {};
  if (::fstat(fd, &st) != 0) {
    return Status::Error(kPathNotFound, refused + "cannot be examined: " + std::strerror(errno));
  }
  const bool directory = S_ISDIR(st.st_mode);
  if (!directory && !S_ISREG(st.st_mode)) {
    return Status::Error(kPathNotRegular,
                         refused +
                             "is not a regular file or directory (a FIFO, socket or "
                             "device); candidates may not open it.");
  }
  if (want == WallWant::kFile && directory) {
    return Status::Error("path_is_directory", refused + "is a directory, not a file.");
  }
  if (want == WallWant::kDirectory && !directory) {
    return Status::Error("path_not_directory", refused + "is a file, not a directory.");
  }
  return VettedObject(guard.Release(), *real, *relative, directory);
}

bool FileWall::HiddenInWalk(const VettedObject& dir, std::string_view relative_to_dir) const {
  const std::string inside = LexicalPath(relative_to_dir);
  if (Protected(Join(dir.relative(), inside))) return true;
  if (inside.empty()) return false;
  // No symlink on the way (a walk never follows one); the last component may be one itself.
  FdGuard entry{
      OpenBeneath(dir.fd(), inside, O_PATH | O_NOFOLLOW, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)};
  struct stat st = {};
  if (entry.fd < 0 || ::fstat(entry.fd, &st) != 0) return true;
  return !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode);
}

Result<std::vector<std::string>> FileWall::List(const VettedObject& dir) const {
  const int fd = ::openat(dir.fd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* stream = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (stream == nullptr) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return Status::Error(kPathNotFound,
                         std::string("Cannot read directory: ") + std::strerror(err));
  }
  std::vector<std::string> names;
  while (struct dirent* entry = ::readdir(stream)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (!HiddenInWalk(dir, name)) names.push_back(name);
  }
  ::closedir(stream);
  return names;
}

Result<int> FileWall::ReopenForReading(const VettedObject& file) {
  // Through /proc the kernel reopens the very inode the O_PATH descriptor holds, not a name.
  const std::string self = "/proc/self/fd/" + std::to_string(file.fd());
  const int fd = ::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    return Status::Error(kPathNotFound,
                         std::string("cannot open the file: ") + std::strerror(errno));
  }
  struct stat st = {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Status::Error(kPathNotRegular, "the file is not a regular file");
  }
  return fd;
}

}  // namespace pi_fusion::child
