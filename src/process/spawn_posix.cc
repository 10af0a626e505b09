#include "process/spawn_posix.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <array>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error_codes.h"
#include "core/file_system.h"
#include "process/spawner_thread.h"

namespace pi_fusion::process {
namespace {

#if defined(PI_FUSION_HAVE_ADDCHDIR_NP)
constexpr bool kHaveAddChdir = true;
#else
constexpr bool kHaveAddChdir = false;
#endif
#if defined(PI_FUSION_HAVE_ADDCLOSEFROM_NP)
constexpr bool kHaveAddClosefrom = true;
#else
constexpr bool kHaveAddClosefrom = false;
#endif
#if defined(__linux__)
constexpr bool kHaveParentDeathSignal = true;
#else
constexpr bool kHaveParentDeathSignal = false;
#endif

Status SpawnError(const SpawnRequest& request, const std::string& what) {
  const std::string exe = request.argv.empty() ? std::string("<none>") : request.argv[0];
  return Status::Error(kChildSpawnFailed, "spawn " + exe + ": " + what);
}

Status Validate(const SpawnRequest& request) {
  if (request.argv.empty() || request.argv[0].empty()) {
    return SpawnError(request, "empty argv");
  }
  for (const auto& arg : request.argv) {
    if (arg.find('\0') != std::string::npos) return SpawnError(request, "NUL byte in argv");
  }
  for (const auto& entry : request.env) {
    if (entry.find('\0') != std::string::npos || entry.find('=') == std::string::npos) {
      return SpawnError(request, "environment entry is not KEY=value");
    }
  }
  if (request.cwd.find('\0') != std::string::npos) return SpawnError(request, "NUL byte in cwd");
  if (request.inherit_fds.size() > kMaxInheritedFds) {
    return SpawnError(request,
                      "more than " + std::to_string(kMaxInheritedFds) + " inherited descriptors");
  }
  for (int fd : request.inherit_fds) {
    if (fd < 0) return SpawnError(request, "a negative inherited descriptor");
  }
  return Status::Ok();
}

// A NULL-terminated char* array over strings that outlive it, as exec wants.
std::vector<char*> CArray(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// The three stdio pipes. child[i] is the end the child gets as fd i; parent[i] the one we keep.
struct StdioPipes {
  std::array<int, 3> child{-1, -1, -1};
  std::array<int, 3> parent{-1, -1, -1};

  void CloseChildEnds() {
    for (int& fd : child) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }
  void CloseAll() {
    CloseChildEnds();
    for (int& fd : parent) {
      if (fd >= 0) close(fd);
      fd = -1;
    }
  }
};

// Close-on-exec copies of SpawnRequest::inherit_fds, all >= first_free() (3 + their count), so
// that no dup2 onto 0..2 or onto the inherited targets 3.. can clobber one before it is used,
// and no copy is its own target (dup2(fd, fd) would keep close-on-exec).
struct InheritedCopies {
  std::vector<int> fds;

  int first_free() const { return 3 + static_cast<int>(fds.size()); }
  // 0 or an errno value; on error the copies made so far stay in `fds` for CloseAll.
  int Make(const std::vector<int>& sources) {
    const int min = 3 + static_cast<int>(sources.size());
    for (int source : sources) {
      const int copy = fcntl(source, F_DUPFD_CLOEXEC, min);
      if (copy < 0) return errno;
      fds.push_back(copy);
    }
    return 0;
  }
  void CloseAll() {
    for (int fd : fds) close(fd);
    fds.clear();
  }
};

// Moves a child end to a descriptor >= 3. If the host runs with a stdio descriptor closed, a new
// pipe can land on 0..2 and the dup2 sequence would clobber one end with another.
int LiftAboveStdio(int fd) {
  if (fd > 2) return fd;
  int lifted = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  int saved = errno;
  close(fd);
  errno = saved;
  return lifted;
}

// pipe2(O_CLOEXEC): the descriptors are never visible without close-on-exec, so a concurrent
// spawn in another thread cannot inherit them. Only our ends are made non-blocking: O_NONBLOCK
// belongs to the open file description, and the child expects ordinary blocking stdio.
int MakeStdioPipes(StdioPipes* pipes) {
  for (int i = 0; i < 3; ++i) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return errno;
    const bool child_reads = (i == 0);
    int child_end = child_reads ? fds[0] : fds[1];
    pipes->parent[i] = child_reads ? fds[1] : fds[0];
    pipes->child[i] = LiftAboveStdio(child_end);
    if (pipes->child[i] < 0) return errno;
    int flags = fcntl(pipes->parent[i], F_GETFL);
    if (flags < 0 || fcntl(pipes->parent[i], F_SETFL, flags | O_NONBLOCK) != 0) return errno;
  }
  return 0;
}

int SpawnWithPosixSpawn(const SpawnRequest& request, const StdioPipes& pipes,
                        const InheritedCopies& inherited, pid_t* pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  int rc = posix_spawn_file_actions_init(&actions);
  if (rc != 0) return rc;
  rc = posix_spawnattr_init(&attr);
  if (rc != 0) {
    posix_spawn_file_actions_destroy(&actions);
    return rc;
  }
  for (int i = 0; i < 3 && rc == 0; ++i) {
    rc = posix_spawn_file_actions_adddup2(&actions, pipes.child[i], i);
  }
  for (size_t i = 0; i < inherited.fds.size() && rc == 0; ++i) {
    rc = posix_spawn_file_actions_adddup2(&actions, inherited.fds[i], 3 + static_cast<int>(i));
  }
#if defined(PI_FUSION_HAVE_ADDCLOSEFROM_NP)
  // Our own descriptors are close-on-exec, but the host may hold inherited ones that are not
  // (a test runner's, a parent shell's); the child gets stdio, the descriptors it is meant to
  // inherit, and nothing else.
  if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, inherited.first_free());
#endif
#if defined(PI_FUSION_HAVE_ADDCHDIR_NP)
  if (rc == 0 && !request.cwd.empty()) {
    rc = posix_spawn_file_actions_addchdir_np(&actions, request.cwd.c_str());
  }
#endif
  // A new process group (pgroup 0 => the child's own pid), an empty signal mask (the calling
  // thread may block SIGPIPE), and default dispositions: Node runs with SIGPIPE ignored, and an
  // ignored disposition would otherwise survive exec into the child.
  sigset_t empty, all;
  sigemptyset(&empty);
  sigfillset(&all);
  if (rc == 0) rc = posix_spawnattr_setpgroup(&attr, 0);
  if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &empty);
  if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &all);
  if (rc == 0) {
    rc = posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  }
  if (rc == 0) {
    std::vector<char*> argv = CArray(request.argv);
    std::vector<char*> envp = CArray(request.env);
    rc = request.search_path ? posix_spawnp(pid, argv[0], &actions, &attr, argv.data(), envp.data())
                             : posix_spawn(pid, argv[0], &actions, &attr, argv.data(), envp.data());
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// posix_spawnp semantics for the fork path, resolved before fork because the child may only make
// async-signal-safe calls. Uses the parent's PATH, like posix_spawnp.
std::string ResolveInPath(const std::string& file) {
  if (file.find('/') != std::string::npos) return file;
  const char* path = getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + file;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return file;  // exec fails with ENOENT, as posix_spawnp would
}

// Closes [low, high] in the forked child; close_range where the kernel has it (Linux >= 5.9).
void CloseSpan(unsigned low, unsigned high, unsigned max_fd) {
  if (low > high) return;
#if defined(SYS_close_range)
  if (syscall(SYS_close_range, low, high, 0) == 0) return;
#endif
  for (unsigned fd = low; fd <= high && fd < max_fd; ++fd) close(static_cast<int>(fd));
}

// Runs in the forked child: async-signal-safe calls only, then exec. Reports errno on `err_fd`.
// `parent` > 0: the child gets SIGKILL when the forking thread (the spawner thread, which lives as
// long as its process) ends; if the parent is already gone, the child ends at once.
[[noreturn]] void ExecInChild(const char* path, char* const* argv, char* const* envp,
                              const char* cwd, const StdioPipes& pipes,
                              const InheritedCopies& inherited, int err_fd, unsigned max_fd,
                              pid_t parent) {
#if defined(__linux__)
  if (parent > 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // it died before the signal was armed
  }
#else
  (void)parent;
#endif
  setpgid(0, 0);
  struct sigaction dfl = {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  int err = 0;
  for (int i = 0; i < 3 && err == 0; ++i) {
    if (dup2(pipes.child[i], i) < 0) err = errno;
  }
  // After stdio, so a stdio child end sitting on 3.. has been copied before it is replaced.
  const int first_free = 3 + static_cast<int>(inherited.fds.size());
  for (int i = 3; i < first_free && err == 0; ++i) {
    if (dup2(inherited.fds[static_cast<size_t>(i - 3)], i) < 0) err = errno;
  }
  if (err == 0 && cwd != nullptr && chdir(cwd) != 0) err = errno;
  // Like addclosefrom_np on the posix_spawn path: stdio and the inherited descriptors only,
  // except the error pipe (which is close-on-exec and so vanishes with a successful exec).
  CloseSpan(static_cast<unsigned>(first_free), static_cast<unsigned>(err_fd) - 1, max_fd);
  CloseSpan(static_cast<unsigned>(err_fd) + 1, ~0u, max_fd);
  if (err == 0) {
    sigset_t empty;
    sigemptyset(&empty);
    sigprocmask(SIG_SETMASK, &empty, nullptr);
    execve(path, argv, envp);
    err = errno;
  }
  (void)!write(err_fd, &err, sizeof(err));
  _exit(127);
}

int SpawnWithFork(const SpawnRequest& request, const StdioPipes& pipes,
                  const InheritedCopies& inherited, pid_t* pid) {
  std::string path = request.search_path ? ResolveInPath(request.argv[0]) : request.argv[0];
  std::vector<char*> argv = CArray(request.argv);
  std::vector<char*> envp = CArray(request.env);
  const char* cwd = request.cwd.empty() ? nullptr : request.cwd.c_str();
  const long open_max = sysconf(_SC_OPEN_MAX);
  const unsigned max_fd =
      open_max > 0 && open_max < 65536 ? static_cast<unsigned>(open_max) : 65536;
  int err_pipe[2];
  if (pipe2(err_pipe, O_CLOEXEC) != 0) return errno;
  // Above stdio and the inherited descriptors, so the child's dup2s cannot clobber it.
  if (err_pipe[1] < inherited.first_free()) {
    const int lifted = fcntl(err_pipe[1], F_DUPFD_CLOEXEC, inherited.first_free());
    const int saved = errno;
    close(err_pipe[1]);
    errno = saved;
    err_pipe[1] = lifted;
  }
  if (err_pipe[1] < 0) {
    int saved = errno;
    close(err_pipe[0]);
    return saved;
  }
  // All signals blocked across fork so no handler of the host runs in the child before the
  // child has reset the dispositions.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t parent = request.die_with_parent ? getpid() : 0;
  pid_t child = fork();
  if (child == 0) {
    ExecInChild(path.c_str(), argv.data(), envp.data(), cwd, pipes, inherited, err_pipe[1], max_fd,
                parent);
  }
  int fork_err = errno;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  close(err_pipe[1]);
  if (child < 0) {
    close(err_pipe[0]);
    return fork_err;
  }
  setpgid(child, child);  // closes the race with the child's own setpgid; errors are harmless
  int child_err = 0;
  ssize_t n;
  do {
    n = read(err_pipe[0], &child_err, sizeof(child_err));
  } while (n < 0 && errno == EINTR);
  close(err_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof(child_err))) {
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
    return child_err;
  }
  *pid = child;
  return 0;
}

}  // namespace

Result<SpawnedProcess> SpawnChild(const SpawnRequest& request, bool use_fork) {
  if (Status s = Validate(request); !s.ok()) return s;
  StdioPipes pipes;
  if (int err = MakeStdioPipes(&pipes); err != 0) {
    pipes.CloseAll();
    return SpawnError(request, "creating stdio pipes: " + ErrnoText(err));
  }
  InheritedCopies inherited;
  if (int err = inherited.Make(request.inherit_fds); err != 0) {
    pipes.CloseAll();
    inherited.CloseAll();
    return SpawnError(request, "copying an inherited descriptor: " + ErrnoText(err));
  }
  // posix_spawn has no way to arm the parent-death signal, so children that must die with us are
  // forked by hand.
  const bool fork_path = use_fork || !kHaveAddClosefrom ||
                         (!kHaveAddChdir && !request.cwd.empty()) ||
                         (kHaveParentDeathSignal && request.die_with_parent);
  pid_t pid = -1;
  int err = 0;
  Status ran = RunOnSpawnerThread([&] {
    err = fork_path ? SpawnWithFork(request, pipes, inherited, &pid)
                    : SpawnWithPosixSpawn(request, pipes, inherited, &pid);
  });
  pipes.CloseChildEnds();
  inherited.CloseAll();
  if (!ran.ok()) {
    pipes.CloseAll();
    return SpawnError(request, ran.message());
  }
  if (err != 0) {
    pipes.CloseAll();
    std::string where = request.cwd.empty() ? "" : " (cwd " + request.cwd + ")";
    return SpawnError(request, ErrnoText(err) + where);
  }
  SpawnedProcess spawned;
  spawned.pid = pid;
  spawned.stdin_fd = pipes.parent[0];
  spawned.stdout_fd = pipes.parent[1];
  spawned.stderr_fd = pipes.parent[2];
  return spawned;
}

}  // namespace pi_fusion::process
