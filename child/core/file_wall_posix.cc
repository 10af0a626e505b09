// FileWall's descriptor work: openat2 beneath the project, judging the opened object, and the
// listings and re-opens that go through vetted descriptors only.
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "child/core/file_wall.h"
#include "child/core/protected_names.h"
#include "child/core/secret_content.h"

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

// Up to kSecretHeadBytes first bytes of the regular file behind the O_PATH descriptor `fd`
// (reopened through /proc, so the same inode), or of the readable descriptor `readable`.
std::optional<std::string> HeadOf(int readable) {
  std::string head(kSecretHeadBytes, '\0');
  size_t got = 0;
  while (got < head.size()) {
    ssize_t n = ::pread(readable, head.data() + got, head.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  head.resize(got);
  return head;
}

std::optional<std::string> HeadOfPathFd(int fd) {
  const std::string self = "/proc/self/fd/" + std::to_string(fd);
  FdGuard readable{::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (readable.fd < 0) return std::nullopt;
  return HeadOf(readable.fd);
}

std::string Parent(const std::string& relative) {
  const size_t slash = relative.find_last_of('/');
  return slash == std::string::npos ? std::string() : relative.substr(0, slash);
}

bool UnderGitObjects(const std::vector<std::string>& folded) {
  for (size_t i = 0; i + 1 < folded.size(); ++i) {
    if (folded[i] == ".git" && folded[i + 1] == "objects") return true;
  }
  return false;
}

}  // namespace

VettedObject::VettedObject(int fd, std::string real_path, std::string relative, bool directory,
                           bool redacted)
    : fd_(fd),
      real_path_(std::move(real_path)),
      relative_(std::move(relative)),
      directory_(directory),
      redacted_(redacted) {}

VettedObject::~VettedObject() {
  if (fd_ >= 0) ::close(fd_);
}

VettedObject::VettedObject(VettedObject&& other) noexcept
    : fd_(other.fd_),
      real_path_(std::move(other.real_path_)),
      relative_(std::move(other.relative_)),
      directory_(other.directory_),
      redacted_(other.redacted_) {
  other.fd_ = -1;
}

std::string VettedObject::ProcPath() const {
  return "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd_);
}

FileWall::FileWall(int root_fd, std::string root, std::vector<ProtectedPrefix> places,
                   std::vector<Identity> identities, std::vector<std::string> extra_rows)
    : root_fd_(root_fd),
      root_(std::move(root)),
      places_(std::move(places)),
      identities_(std::move(identities)),
      extra_rows_(std::move(extra_rows)) {}

FileWall::~FileWall() { ::close(root_fd_); }

Result<std::shared_ptr<const FileWall>> FileWall::Open(const std::string& project_dir,
                                                       const WallPlaces& places) {
  const int fd = ::open(project_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  std::optional<std::string> root = fd >= 0 ? PathOfFd(fd) : std::nullopt;
  if (!root) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    return Status::Error(kPathNotFound, "the project directory " + project_dir +
                                            " cannot be opened: " + std::strerror(err));
  }
  std::vector<ProtectedPrefix> prefixes;
  std::vector<Identity> identities;
  struct stat root_st = {};
  ::fstat(fd, &root_st);
  // A place protected by identity, and by its path when it lies inside the project ("." when it
  // is the project itself: then everything is protected).
  auto add = [&](const std::string& path, const std::string& reason, bool by_path) {
    if (path.empty()) return;
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0) return;
    identities.push_back({st.st_dev, st.st_ino, reason});
    if (st.st_dev == root_st.st_dev && st.st_ino == root_st.st_ino) {
      prefixes.push_back({".", "the project is " + reason.substr(reason.find("is ") + 3)});
      return;
    }
    if (!by_path) return;
    if (char* real = ::realpath(path.c_str(), nullptr)) {
      if (std::optional<std::string> inside = RelativeTo(*root, real)) {
        prefixes.push_back({*inside, reason});
      }
      std::free(real);
    }
  };
  add(places.agent_dir, "it is Pi's agent directory (settings and credentials)", true);
  for (const std::string& dir : places.session_dirs) {
    add(dir, "it is one of Pi's session directories (conversations)", true);
  }
  add(*root + "/.pi/fusion", "it is Fusion's run store", false);
  if (!places.home.empty() && places.home.front() == '/') {
    for (const ProtectedRow& row : BuiltInProtectedRows()) {
      add(places.home + "/" + std::string(row.path),
          "it is " + std::string(row.what) + " in the home directory", false);
    }
    for (const std::string& row : places.extra_rows) {
      add(places.home + "/" + row, "it is a place protected by a setting", false);
    }
  }
  return std::shared_ptr<const FileWall>(
      new FileWall(fd, *root, std::move(prefixes), std::move(identities), places.extra_rows));
}

std::optional<Protection> FileWall::Protected(std::string_view relative) const {
  return ProtectedReason(relative, places_, extra_rows_);
}

std::optional<Protection> FileWall::ProtectedObject(int fd, const std::string& relative,
                                                    const std::string& vetted_ancestor,
                                                    const std::optional<std::string>& head) const {
  struct stat st = {};
  if (::fstat(fd, &st) != 0) return Protection{kPathNotFound, "it cannot be examined"};
  auto identity = [&](const struct stat& s) -> std::optional<Protection> {
    for (const Identity& id : identities_) {
      if (id.dev == s.st_dev && id.ino == s.st_ino) return Protection{kPathProtected, id.reason};
    }
    return std::nullopt;
  };
  if (std::optional<Protection> p = identity(st)) return p;
  // The directories between the vetted ancestor and the object (the real path has no symlinks).
  for (std::string dir = Parent(relative);
       !identities_.empty() && dir.size() > vetted_ancestor.size(); dir = Parent(dir)) {
    FdGuard parent{OpenBeneath(root_fd_, dir, O_PATH | O_DIRECTORY,
                               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)};
    struct stat ps = {};
    if (parent.fd < 0 || ::fstat(parent.fd, &ps) != 0) {
      return Protection{kPathNotFound, "a directory on its path cannot be examined"};
    }
    if (std::optional<Protection> p = identity(ps)) return p;
  }
  if (!S_ISREG(st.st_mode)) return std::nullopt;
  if (head && HoldsPrivateKey(*head)) {
    return Protection{kPathProtected, "it holds a private key"};
  }
  return HardLinkRefusal(st, relative, head);
}

std::optional<Protection> FileWall::HardLinkRefusal(const struct stat& st,
                                                    const std::string& relative,
                                                    const std::optional<std::string>& head) const {
  if (st.st_nlink <= 1) return std::nullopt;
  if (UnderGitObjects(FoldedComponents(relative))) {
    // git links objects on a local clone; what it links is compressed or a pack.
    if (!head || LooksLikeGitObject(*head)) return std::nullopt;
    return Protection{kPathProtected,
                      "it is a hard-linked file under .git/objects that is not a git object"};
  }
  // Every other name must be in the same directory, and none of them protected.
  const std::string parent = Parent(relative);
  const int dir_fd = OpenBeneath(root_fd_, parent.empty() ? "." : parent, O_RDONLY | O_DIRECTORY,
                                 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
  DIR* stream = dir_fd >= 0 ? ::fdopendir(dir_fd) : nullptr;
  if (stream == nullptr && dir_fd >= 0) ::close(dir_fd);
  nlink_t names = 0;
  bool protected_name = false;
  while (stream != nullptr) {
    struct dirent* entry = ::readdir(stream);
    if (entry == nullptr) break;
    if (entry->d_ino != st.st_ino) continue;
    struct stat other = {};
    if (::fstatat(::dirfd(stream), entry->d_name, &other, AT_SYMLINK_NOFOLLOW) != 0 ||
        other.st_dev != st.st_dev || other.st_ino != st.st_ino) {
      continue;
    }
    ++names;
    const std::string name = parent.empty() ? entry->d_name : parent + "/" + entry->d_name;
    protected_name = protected_name || Protected(name).has_value();
  }
  if (stream != nullptr) ::closedir(stream);
  if (names == st.st_nlink && !protected_name) return std::nullopt;
  return Protection{kPathProtected,
                    "it is a hard link whose other names cannot all be seen; it may be another "
                    "name of a protected file"};
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
  std::optional<std::string> head;
  if (!directory) head = HeadOfPathFd(fd);
  if (!directory && !head) {
    return Status::Error(kPathNotFound, refused + "cannot be read: " + std::strerror(errno));
  }
  if (std::optional<Protection> p = ProtectedObject(fd, *relative, "", head)) {
    return Status::Error(p->code, refused + "may not be read: " + p->reason + ".");
  }
  if (want == WallWant::kFile && directory) {
    return Status::Error("path_is_directory", refused + "is a directory, not a file.");
  }
  if (want == WallWant::kDirectory && !directory) {
    return Status::Error("path_not_directory", refused + "is a file, not a directory.");
  }
  const bool redacted = !directory && IsRedactedFile(FoldedComponents(*relative));
  return VettedObject(guard.Release(), *real, *relative, directory, redacted);
}

bool FileWall::HiddenInWalk(const VettedObject& dir, std::string_view relative_to_dir,
                            WalkCheck check) const {
  const std::string inside = LexicalPath(relative_to_dir);
  const std::string joined = Join(dir.relative(), inside);
  if (Protected(joined)) return true;
  if (inside.empty()) return false;
  // No symlink on the way (a walk never follows one); the last component may be one itself.
  FdGuard entry{
      OpenBeneath(dir.fd(), inside, O_PATH | O_NOFOLLOW, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)};
  struct stat st = {};
  if (entry.fd < 0 || ::fstat(entry.fd, &st) != 0) return true;
  if (S_ISLNK(st.st_mode)) return false;
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return true;
  std::optional<std::string> head;
  if (check == WalkCheck::kContent && S_ISREG(st.st_mode)) {
    head = HeadOfPathFd(entry.fd);
    if (!head) return true;
  }
  return ProtectedObject(entry.fd, joined, dir.relative(), head).has_value();
}

bool FileWall::RedactedInWalk(const VettedObject& dir, std::string_view relative_to_dir) const {
  return IsRedactedFile(FoldedComponents(Join(dir.relative(), relative_to_dir)));
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
  FdGuard fd{::open(self.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (fd.fd < 0) {
    return Status::Error(kPathNotFound,
                         std::string("cannot open the file: ") + std::strerror(errno));
  }
  struct stat st = {};
  if (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return Status::Error(kPathNotRegular, "the file is not a regular file");
  }
  // Judged again on the descriptor that will be read: the file may have changed since Vet.
  std::optional<std::string> head = HeadOf(fd.fd);
  if (!head || HoldsPrivateKey(*head)) {
    return Status::Error(kPathProtected, "Refused: \"" + file.relative() +
                                             "\" may not be read: it holds a private key.");
  }
  if (!file.redacted()) return fd.Release();
  if (static_cast<uint64_t>(st.st_size) > kMaxRedactedBytes) {
    return Status::Error(kPathProtected, "Refused: \"" + file.relative() +
                                             "\" is too large to be shown with its URLs' "
                                             "credentials redacted.");
  }
  std::string text;
  for (char buf[64 * 1024];;) {
    ssize_t n = ::read(fd.fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || text.size() + static_cast<size_t>(n) > kMaxRedactedBytes) break;
    text.append(buf, static_cast<size_t>(n));
  }
  const std::string redacted = RedactUrlUserinfo(text);
  // A memory file: the reader gets a descriptor as for any file, holding only the redacted text.
  FdGuard memory{::memfd_create("pi-fusion-redacted", MFD_CLOEXEC)};
  size_t written = 0;
  while (memory.fd >= 0 && written < redacted.size()) {
    ssize_t n = ::write(memory.fd, redacted.data() + written, redacted.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  if (memory.fd < 0 || written != redacted.size() || ::lseek(memory.fd, 0, SEEK_SET) != 0) {
    return Status::Error(kPathNotFound,
                         std::string("cannot redact the file: ") + std::strerror(errno));
  }
  return memory.Release();
}

}  // namespace pi_fusion::child
