// The mount-namespace half of the walkers' jail (walk_jail.h): unshare, a fresh tmpfs root with
// the project and the system's code bound read-only, the protected places covered, pivot_root.
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "process/walk_jail.h"

#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256  // Linux 5.10
#endif

namespace pi_fusion::process {
namespace {

// Directories a fresh root can be mounted on before the pivot; the first that takes it wins.
constexpr const char* kScratchPoints[] = {"/tmp", "/mnt", "/run", "/var/tmp"};

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string FdPath(int fd) { return "/proc/self/fd/" + std::to_string(fd); }

bool WriteText(const char* path, const std::string& text) {
  Fd f{::open(path, O_WRONLY | O_CLOEXEC)};
  if (f.fd < 0) return false;
  return ::write(f.fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
}

// A private mount namespace: root may have one directly; anyone else (and root where that is
// refused) through a user namespace in which this process keeps its own ids.
bool Unshare() {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (uid == 0 && ::unshare(CLONE_NEWNS) == 0) return true;
  if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return false;
  WriteText("/proc/self/setgroups", "deny");  // absent before Linux 3.19
  return WriteText("/proc/self/uid_map",
                   std::to_string(uid) + " " + std::to_string(uid) + " 1\n") &&
         WriteText("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
}

bool MkdirAll(const std::string& path) {
  for (size_t slash = 1; slash != std::string::npos;) {
    slash = path.find('/', slash + 1);
    const std::string part = path.substr(0, slash);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool Touch(const std::string& path) {
  Fd f{::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0444)};
  return f.fd >= 0;
}

// The per-mount flags a user namespace may not clear on a bind of a mount it did not create.
unsigned long LockedFlags(const std::string& path) {
  struct statvfs sv {};
  if (::statvfs(path.c_str(), &sv) != 0) return 0;
  unsigned long flags = 0;
  if (sv.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (sv.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (sv.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (sv.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (sv.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (sv.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

bool BindReadOnly(const std::string& source, const std::string& target, unsigned long extra,
                  bool recursive) {
  if (::mount(source.c_str(), target.c_str(), nullptr, MS_BIND | (recursive ? MS_REC : 0),
              nullptr) != 0) {
    return false;
  }
  const unsigned long flags =
      MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | extra | LockedFlags(target);
  return ::mount(nullptr, target.c_str(), nullptr, flags, nullptr) == 0;
}

// The system's code (the walker's loader and libraries) at its own paths in `root`; a symlink
// (/lib -> usr/lib) is copied as a symlink.
bool PlaceCode(const std::string& root, const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return errno == ENOENT;
  const std::string target = root + path;
  const size_t slash = target.find_last_of('/');
  if (!MkdirAll(target.substr(0, slash))) return false;
  if (S_ISLNK(st.st_mode)) {
    std::string link(4096, '\0');
    const ssize_t n = ::readlink(path.c_str(), link.data(), link.size() - 1);
    if (n <= 0) return false;
    link.resize(static_cast<size_t>(n));
    return ::symlink(link.c_str(), target.c_str()) == 0;
  }
  if (S_ISDIR(st.st_mode)) return MkdirAll(target) && BindReadOnly(path, target, 0, true);
  if (S_ISREG(st.st_mode)) return Touch(target) && BindReadOnly(path, target, 0, false);
  return true;  // anything else is left out
}

// Covers the project-relative `relative` (beneath `project_fd`, never through a symlink) with the
// empty directory or file of `empties`, as it is; a place that is not there needs no cover.
bool Mask(int project_fd, const std::string& relative, const std::string& empties) {
  struct open_how how = {};
  how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV;
  Fd place{
      static_cast<int>(::syscall(SYS_openat2, project_fd, relative.c_str(), &how, sizeof(how)))};
  // Not there, already under a cover (EXDEV), or behind a symlink: nothing more to do.
  if (place.fd < 0)
    return errno == ENOENT || errno == ENOTDIR || errno == EXDEV ||
           errno == ELOOP;  // through a symlink, never followed here
  struct stat st {};
  if (::fstat(place.fd, &st) != 0) return false;
  const char* cover = S_ISDIR(st.st_mode) ? "/d" : S_ISREG(st.st_mode) ? "/f" : nullptr;
  if (cover == nullptr) return true;  // a symlink is never followed on this mount
  return ::mount((empties + cover).c_str(), FdPath(place.fd).c_str(), nullptr, MS_BIND, nullptr) ==
         0;
}

// A read-only tmpfs at `path` holding one empty directory `d` and one empty file `f`.
bool MakeEmpties(const std::string& path) {
  if (!MkdirAll(path) ||
      ::mount("none", path.c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=16k") != 0) {
    return false;
  }
  if (::mkdir((path + "/d").c_str(), 0555) != 0 || !Touch(path + "/f")) return false;
  return ::mount(nullptr, path.c_str(), nullptr,
                 MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
}

bool BuildRoot(const WalkJailSpec& spec, int project_fd, const std::string& root) {
  for (const std::string& path : spec.code_paths) {
    if (!PlaceCode(root, path)) return false;
  }
  const std::string empties = root + "/.pi-fusion-empty";
  if (!MakeEmpties(empties)) return false;
  const std::string project = root + spec.project;
  if (!MkdirAll(project)) return false;
  if (::mount(FdPath(project_fd).c_str(), project.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return false;
  }
  Fd bound{::open(project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (bound.fd < 0) return false;
  for (const std::string& relative : spec.masked) {
    if (!Mask(bound.fd, relative, empties)) return false;
  }
  // nosymfollow: no symlink on the project's mount is followed, so a directory swapped for a
  // symlink leads nowhere, even into the project's own protected places.
  const unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC |
                              MS_NOSYMFOLLOW | LockedFlags(project);
  // The scratch root itself stays writable: it is this process's alone, gone with it, and
  // Landlock denies writes; remounting it read-only would cost a file-system sync per walk.
  return ::mount(nullptr, project.c_str(), nullptr, flags, nullptr) == 0;
}

bool MountScratchRoot(std::string* root) {
  for (const char* point : kScratchPoints) {
    if (::mount("none", point, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") == 0) {
      *root = point;
      return true;
    }
  }
  return false;
}

bool PivotInto(const std::string& root) {
  if (::chdir(root.c_str()) != 0) return false;
  if (::syscall(SYS_pivot_root, ".", ".") != 0) return false;
  // The old root is stacked under the new one: detach it, and nothing outside is left.
  if (::umount2(".", MNT_DETACH) != 0) return false;
  return ::chdir("/") == 0;
}

// The namespace, or false with nothing of it in use: a failure after the scratch root was
// mounted takes it away again, so the process walks its old mounts as before.
bool EnterNamespace(const WalkJailSpec& spec) {
  if (!Unshare()) return false;
  // Opened inside the new namespace: a bind source must be a mount of this namespace.
  Fd project{::open(spec.project.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (project.fd < 0) return false;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return false;
  std::string root;
  if (!MountScratchRoot(&root)) return false;
  if (BuildRoot(spec, project.fd, root) && PivotInto(root)) return true;
  ::umount2(root.c_str(), MNT_DETACH);
  return false;
}

}  // namespace

std::string WalkProtection::Name() const {
  if (mount_namespace && landlock) return "namespace+landlock";
  if (mount_namespace) return "namespace";
  if (landlock) return "landlock";
  return "none";
}

WalkProtection EnterWalkJail(const WalkJailSpec& spec, int executable_fd) {
  WalkProtection held;
  held.mount_namespace = EnterNamespace(spec);
  held.landlock = RestrictWithLandlock(spec.project, spec.code_paths, executable_fd);
  return held;
}

}  // namespace pi_fusion::process
