// ProcessEnv: the seam between the supervisor and the operating system.
//
// Every OS call the supervisor makes (spawn, pipe I/O, poll, process-group signals, waiting for
// its own pid, clocks, sleeping) goes through this interface, in the manner of leveldb's Env.
// Production code uses NewPosixProcessEnv(); tests derive from ProcessEnvWrapper and override one
// method to inject a fault (a spawn failure, EPIPE on stdin, a clock that jumps) without real
// minutes of waiting.
//
// Rules every implementation keeps, because the supervisor runs inside Node:
//   - no signal handlers are installed and SIGCHLD is never touched (libuv owns it);
//   - only the given pid is waited for, never waitpid(-1);
//   - every descriptor is created close-on-exec, so a child spawned by another thread at the same
//     moment cannot inherit it;
//   - Write() never raises SIGPIPE; a closed reader is reported as EPIPE.
//
// Thread-safety: the POSIX implementation is stateless and safe to use from many threads at once.
// Wrappers must be as thread-safe as the tests that use them need.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "pi_fusion/status.h"

namespace pi_fusion::process {

// What to start. All strings are passed verbatim; none may contain a NUL byte.
struct SpawnRequest {
  std::vector<std::string> argv;  // argv[0] is the executable path (see search_path)
  std::vector<std::string> env;   // the child's complete environment, "KEY=value" entries
  std::string cwd;                // working directory; empty = the parent's
  bool search_path = false;       // look argv[0] up in the *parent's* PATH (posix_spawnp)
  // The child gets SIGKILL when this process ends, however it ends (Linux PR_SET_PDEATHSIG, armed
  // from a spawner thread that lives as long as the process, so it is safe to spawn from any
  // thread). A child that must outlive a crash of its host is never what Fusion wants; false
  // exists for tests of the posix_spawn path. The child's own children are not covered: a child
  // that starts processes must watch for its parent's death itself (the child library does).
  bool die_with_parent = true;
  // Descriptors of ours the child inherits: inherit_fds[i] becomes the child's descriptor 3 + i,
  // without close-on-exec; every other descriptor but stdio is still closed. The caller keeps
  // ownership (they must stay open until Spawn returns). At most kMaxInheritedFds, each >= 0.
  // How a parent hands a child one end of a private pipe (the first-request signal) without a
  // name in any file system.
  std::vector<int> inherit_fds;
};

inline constexpr size_t kMaxInheritedFds = 4;

// A started child. The process is the leader of a new process group (pgid == pid). The three
// descriptors are the parent's pipe ends, close-on-exec and non-blocking.
// The caller owns the descriptors (close them with ProcessEnv::Close) and must reap the pid.
struct SpawnedProcess {
  pid_t pid = -1;
  int stdin_fd = -1;   // write end of the child's stdin
  int stdout_fd = -1;  // read end of the child's stdout
  int stderr_fd = -1;  // read end of the child's stderr
};

// Result of a read or write: bytes >= 0 on success, otherwise bytes == -1 and error holds the
// errno value (never EINTR: implementations retry it).
struct IoResult {
  ssize_t bytes = 0;
  int error = 0;
};

// How a child ended. Exactly one of exit_code / signal is set.
struct ExitStatus {
  std::optional<int> exit_code;
  std::optional<int> signal;
};

class ProcessEnv {
 public:
  virtual ~ProcessEnv() = default;

  // Starts a child in a new process group with three fresh pipes as its stdin/stdout/stderr (and
  // request.inherit_fds as its descriptors 3..; no other descriptor of ours), all
  // signal dispositions at their defaults and an empty signal mask. Errors (code
  // "child_spawn_failed") include exec failures such as ENOENT; no descriptor is leaked on error.
  virtual Result<SpawnedProcess> Spawn(const SpawnRequest& request) = 0;

  // Non-blocking write to a pipe. Never raises SIGPIPE: a closed reader yields error == EPIPE.
  virtual IoResult Write(int fd, const char* data, size_t size) = 0;
  // Non-blocking read. bytes == 0 means end of file; error == EAGAIN means no data yet.
  virtual IoResult Read(int fd, char* buffer, size_t size) = 0;
  // Closes a descriptor this env created. Returns 0 or an errno value.
  virtual int Close(int fd) = 0;

  // poll(2). Returns the number of ready entries, 0 on timeout or EINTR, or -errno.
  virtual int Poll(std::span<pollfd> fds, std::chrono::milliseconds timeout) = 0;

  // A descriptor that becomes readable (POLLIN) once `pid` has exited, or -1 when the platform
  // has none; callers then poll CheckExit. The caller owns the descriptor.
  // REQUIRES: pid is an unreaped child of this process.
  virtual int OpenExitWatch(pid_t pid) = 0;

  // Non-blocking check whether our child `pid` has exited. With reap == false the child stays a
  // zombie, which keeps its pid (and so its process-group id) from being reused while we still
  // signal the group. Returns nullopt while it runs; an error (e.g. ECHILD when someone else
  // reaped it) as a Status.
  virtual Result<std::optional<ExitStatus>> CheckExit(pid_t pid, bool reap) = 0;

  // kill(-pgid, sig). Returns 0 or an errno value (ESRCH: the group is empty).
  virtual int KillGroup(pid_t pgid, int sig) = 0;

  // The time seam (core/clock.h). Now() times the wall and idle limits and the TERM->KILL waits:
  // it never goes backwards in production, tests may make it jump either way. WallNow() stamps
  // the outcome record only, never a deadline. SleepFor() is used only when poll() itself has
  // failed, so that the loop still waits between attempts.
  virtual const Clock& clock() = 0;

  // A copy of this process's environment ("KEY=value" entries), the input of
  // BuildChildEnvironment(). Racy against concurrent setenv() in other threads, as getenv() is.
  virtual std::vector<std::string> CurrentEnvironment() = 0;
};

// Forwards every call to a target env. Tests derive from it and override what they fault.
// The target is not owned and must outlive the wrapper.
class ProcessEnvWrapper : public ProcessEnv {
 public:
  explicit ProcessEnvWrapper(ProcessEnv* target) : target_(target) {}
  ProcessEnv* target() const { return target_; }

  Result<SpawnedProcess> Spawn(const SpawnRequest& r) override { return target_->Spawn(r); }
  IoResult Write(int fd, const char* d, size_t n) override { return target_->Write(fd, d, n); }
  IoResult Read(int fd, char* b, size_t n) override { return target_->Read(fd, b, n); }
  int Close(int fd) override { return target_->Close(fd); }
  int Poll(std::span<pollfd> fds, std::chrono::milliseconds t) override {
    return target_->Poll(fds, t);
  }
  int OpenExitWatch(pid_t pid) override { return target_->OpenExitWatch(pid); }
  Result<std::optional<ExitStatus>> CheckExit(pid_t pid, bool reap) override {
    return target_->CheckExit(pid, reap);
  }
  int KillGroup(pid_t pgid, int sig) override { return target_->KillGroup(pgid, sig); }
  const Clock& clock() override { return target_->clock(); }
  std::vector<std::string> CurrentEnvironment() override { return target_->CurrentEnvironment(); }

 private:
  ProcessEnv* target_;
};

struct PosixProcessEnvOptions {
  // Wait for exits with pidfd_open + poll where the kernel supports it (Linux >= 5.3). false
  // forces the portable fallback (CheckExit polling); tests use it to cover that path.
  bool use_pidfd = true;
  // Spawn with fork + exec instead of posix_spawn. The build selects it automatically when the
  // platform lacks posix_spawn_file_actions_addchdir_np and a cwd is requested; tests force it to
  // cover that path. Default false.
  bool force_fork_spawn = false;
};

// The production env. Stateless: one instance may be shared by any number of threads.
std::unique_ptr<ProcessEnv> NewPosixProcessEnv(const PosixProcessEnvOptions& options = {});

}  // namespace pi_fusion::process
