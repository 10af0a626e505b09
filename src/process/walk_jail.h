// WalkJail: the place where the candidates' walkers (ripgrep and fd) run, kept by the kernel
// rather than by path checks. pi-fusion-walk (src/cli/walk_main.cc) enters it, then execs the
// walker; the candidates' grep and find start that command instead of the walker itself.
//
// Two independent protections, each taken when the kernel grants it:
//   - a private mount namespace (a user namespace too when not root) whose root is a fresh tmpfs
//     holding only the project, bound read-only and `nosymfollow` at its own absolute path, and
//     the system's code directories (/usr and the /lib, /bin links; read-only). Fusion's run
//     store, Pi's data and the credential places at the project's top are covered by empty
//     read-only mounts. Nothing outside the project exists there, and no symlink is followed on
//     the project's mount, so a directory swapped for a symlink (to ~/.ssh, or to .pi/fusion)
//     resolves to nothing, whatever the timing.
//   - Landlock (ABI >= 1): the walker may read only beneath the project, read and execute only the
//     system's code directories and its own executable, and write nothing.
// Neither holds on kernels or containers that refuse them (Docker's default seccomp profile
// refuses unshare); the walker then runs as before, and the caller's per-line checks are all
// that stands (docs/security.md).
//
// Entering is done once, in a single-threaded process that is about to exec (it changes the
// process's namespaces, root and working directory). Not thread-safe; not for the addons.
#pragma once

#include <string>
#include <vector>

namespace pi_fusion::process {

struct WalkJailSpec {
  std::string project;              // absolute real path of the project directory
  std::string start;                // where the walk starts, relative to the project ("" = top)
  std::vector<std::string> masked;  // project-relative places to cover when they exist
  std::vector<std::string> code_paths = {"/usr",   "/bin",   "/sbin",   "/lib",
                                         "/lib32", "/lib64", "/libx32", "/etc/ld.so.cache"};
};

// Which protections held: the walker's report, recorded in the audit journal.
struct WalkProtection {
  bool mount_namespace = false;
  bool landlock = false;
  // "namespace+landlock", "namespace", "landlock" or "none".
  std::string Name() const;
};

// Enters the jail as far as the kernel allows and returns what held. `executable_fd` (an O_PATH
// descriptor of the walker, opened before) is granted execution under Landlock. On return the
// working directory is the start directory when the namespace held (else unchanged).
WalkProtection EnterWalkJail(const WalkJailSpec& spec, int executable_fd);

// The Landlock half alone (also called by EnterWalkJail after the namespace): restricts this
// process and its descendants to reading beneath `project`, reading and executing beneath
// `code_paths` and `executable_fd`. False when the kernel has no Landlock or refuses it.
bool RestrictWithLandlock(const std::string& project, const std::vector<std::string>& code_paths,
                          int executable_fd);

}  // namespace pi_fusion::process
