// The production ProcessEnv: thin, stateless wrappers over POSIX calls.
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <string>
#include <thread>

#include "core/error_codes.h"
#include "core/file_system.h"
#include "process/process_env.h"
#include "process/spawn_posix.h"

extern char** environ;

namespace pi_fusion::process {
namespace {

// Writes without ever letting SIGPIPE reach the host.
//
// Why this way: writing to a pipe whose reader is gone raises SIGPIPE at the writing thread, and
// its default action kills the whole process (Node ignores it, but a test binary or another host
// may not). MSG_NOSIGNAL exists only for send() on sockets, and giving the child a socketpair as
// stdin would be visible to it (fstat reports a socket; Node wraps it differently). Setting
// SIGPIPE to SIG_IGN is process-wide global state we must not change inside a host. So the
// signal is blocked for this thread only, for the duration of the write; if the write failed
// with EPIPE, the SIGPIPE it queued for this thread is consumed with a zero-timeout sigtimedwait
// before the old mask returns. A SIGPIPE that was already pending beforehand (not ours) is left
// alone.
IoResult WriteNoSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_set, old_mask, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  sigemptyset(&pending);
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_mask);
  ssize_t n;
  do {
    n = write(fd, data, size);
  } while (n < 0 && errno == EINTR);
  const int err = n < 0 ? errno : 0;
  if (err == EPIPE && !was_pending) {
    const timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  return IoResult{n < 0 ? -1 : n, err};
}

ExitStatus DecodeExit(const siginfo_t& info) {
  ExitStatus status;
  if (info.si_code == CLD_EXITED) {
    status.exit_code = info.si_status;
  } else {
    status.signal = info.si_status;  // CLD_KILLED or CLD_DUMPED
  }
  return status;
}

class PosixProcessEnv final : public ProcessEnv {
 public:
  explicit PosixProcessEnv(const PosixProcessEnvOptions& options) : options_(options) {}

  Result<SpawnedProcess> Spawn(const SpawnRequest& request) override {
    return SpawnChild(request, options_.force_fork_spawn);
  }

  IoResult Write(int fd, const char* data, size_t size) override {
    return WriteNoSigpipe(fd, data, size);
  }

  IoResult Read(int fd, char* buffer, size_t size) override {
    ssize_t n;
    do {
      n = read(fd, buffer, size);
    } while (n < 0 && errno == EINTR);
    return IoResult{n < 0 ? -1 : n, n < 0 ? errno : 0};
  }

  int Close(int fd) override {
    // On Linux the descriptor is released even when close() reports EINTR; retrying could close
    // a descriptor another thread just received.
    if (close(fd) == 0 || errno == EINTR) return 0;
    return errno;
  }

  int Poll(std::span<pollfd> fds, std::chrono::milliseconds timeout) override {
    int ms = static_cast<int>(std::min<std::chrono::milliseconds::rep>(timeout.count(), 60000));
    int n = poll(fds.data(), fds.size(), ms < 0 ? 0 : ms);
    if (n >= 0) return n;
    return errno == EINTR ? 0 : -errno;
  }

  int OpenExitWatch(pid_t pid) override {
#if defined(PI_FUSION_HAVE_PIDFD_OPEN)
    // pidfd_open (Linux >= 5.3): a descriptor that polls readable when the process exits, so we
    // wait for exactly our child without SIGCHLD. Always close-on-exec. ENOSYS on older kernels
    // (and EPERM under some seccomp filters) falls back to polling CheckExit.
    if (options_.use_pidfd) {
      long fd = syscall(SYS_pidfd_open, pid, 0);
      if (fd >= 0) return static_cast<int>(fd);
    }
#else
    (void)pid;
#endif
    return -1;
  }

  Result<std::optional<ExitStatus>> CheckExit(pid_t pid, bool reap) override {
    siginfo_t info = {};
    info.si_pid = 0;  // waitid leaves it 0 when nothing changed (portable check, see waitid(2))
    int flags = WEXITED | WNOHANG | (reap ? 0 : WNOWAIT);
    int rc;
    do {
      rc = waitid(P_PID, static_cast<id_t>(pid), &info, flags);
    } while (rc < 0 && errno == EINTR);
    if (rc < 0) {
      return Status::Error(kChildExitFailed,
                           "waitid(" + std::to_string(pid) + "): " + ErrnoText(errno));
    }
    if (info.si_pid == 0) return std::optional<ExitStatus>();
    return std::optional<ExitStatus>(DecodeExit(info));
  }

  int KillGroup(pid_t pgid, int sig) override {
    // kill(-1) would signal every process we may signal, kill(0) our own group: never.
    if (pgid <= 1) return EINVAL;
    return kill(-pgid, sig) == 0 ? 0 : errno;
  }

  const Clock& clock() override { return SystemClock(); }

  std::vector<std::string> CurrentEnvironment() override {
    std::vector<std::string> env;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      env.emplace_back(*entry);
    }
    return env;
  }

 private:
  const PosixProcessEnvOptions options_;
};

}  // namespace

std::unique_ptr<ProcessEnv> NewPosixProcessEnv(const PosixProcessEnvOptions& options) {
  return std::make_unique<PosixProcessEnv>(options);
}

}  // namespace pi_fusion::process
