// Faults injected through the ProcessEnv seam: spawn failure, EPIPE, clocks that jump, failing
// kill/wait/poll calls, and the portable fallbacks (no pidfd, fork instead of posix_spawn).
#include <fcntl.h>
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "process/process_env.h"
#include "process/supervisor.h"
#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::Misbehave;
using testing::OpenFds;
using testing::RelaxedLimits;

// A POSIX env with optional faults. Polls are capped at 20 ms so that a jumping clock is seen
// promptly without waiting out real deadlines.
class FaultEnv : public ProcessEnvWrapper {
 public:
  explicit FaultEnv(const PosixProcessEnvOptions& options = {})
      : FaultEnv(NewPosixProcessEnv(options)) {}

  std::function<Result<SpawnedProcess>(const SpawnRequest&)> spawn;
  std::function<IoResult(int, const char*, size_t)> write;
  std::function<int(pid_t, int)> kill_group;
  std::function<Result<std::optional<ExitStatus>>(pid_t, bool)> check_exit;
  std::function<int(int calls)> poll_fault;  // returns -errno to fail a poll, 0 to pass
  std::chrono::milliseconds clock_jump{0};
  int jump_after_clock_reads = 0;  // the jump applies from this many clock().Now() calls on

  Result<SpawnedProcess> Spawn(const SpawnRequest& r) override {
    return spawn ? spawn(r) : target()->Spawn(r);
  }
  IoResult Write(int fd, const char* d, size_t n) override {
    return write ? write(fd, d, n) : target()->Write(fd, d, n);
  }
  int Poll(std::span<pollfd> fds, std::chrono::milliseconds t) override {
    ++polls_;
    if (poll_fault) {
      if (int err = poll_fault(polls_); err != 0) return err;
    }
    return target()->Poll(fds, std::min(t, std::chrono::milliseconds(20)));
  }
  Result<std::optional<ExitStatus>> CheckExit(pid_t pid, bool reap) override {
    return check_exit ? check_exit(pid, reap) : target()->CheckExit(pid, reap);
  }
  int KillGroup(pid_t pgid, int sig) override {
    return kill_group ? kill_group(pgid, sig) : target()->KillGroup(pgid, sig);
  }
  const Clock& clock() override { return clock_; }

  ProcessEnv* posix() { return target(); }
  int polls() const { return polls_; }

 private:
  // The base is initialised from posix.get() before `posix` is moved into the member.
  explicit FaultEnv(std::unique_ptr<ProcessEnv> posix)
      : ProcessEnvWrapper(posix.get()), posix_(std::move(posix)) {}

  // The real clock, whose Now() jumps by clock_jump once it has been read
  // jump_after_clock_reads times.
  class JumpingClock : public Clock {
   public:
    explicit JumpingClock(const FaultEnv* env) : env_(env) {}
    TimePoint Now() const override {
      const TimePoint now = SystemClock().Now();
      return ++reads_ >= env_->jump_after_clock_reads ? now + env_->clock_jump : now;
    }
    WallTimePoint WallNow() const override { return SystemClock().WallNow(); }
    void SleepFor(std::chrono::milliseconds d) const override { SystemClock().SleepFor(d); }

   private:
    const FaultEnv* env_;
    mutable int reads_ = 0;
  };

  std::unique_ptr<ProcessEnv> posix_;
  int polls_ = 0;
  JumpingClock clock_{this};
};

ChildOutcome MustRun(ProcessEnv* env, const ChildSpec& spec) {
  Result<ChildOutcome> r = Supervisor(env).Run(spec);
  INFO((r.ok() ? std::string("ok") : r.status().ToString()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

bool CloseOnExec(int fd) { return (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0; }
bool NonBlocking(int fd) { return (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0; }

// Other threads of the host (Node's child_process, another supervisor) spawn children at any
// moment; only close-on-exec keeps our descriptors out of them.
TEST_CASE("ProcessEnv: every descriptor it creates is close-on-exec; ours are non-blocking") {
  const auto fds = OpenFds();
  std::unique_ptr<ProcessEnv> env = NewPosixProcessEnv();
  Result<SpawnedProcess> child = env->Spawn({{testing::MisbehavePath(), "silent"}, {}, "", false});
  REQUIRE(child.ok());
  const SpawnedProcess& p = child.value();
  for (int fd : {p.stdin_fd, p.stdout_fd, p.stderr_fd}) {
    CHECK(CloseOnExec(fd));
    CHECK(NonBlocking(fd));
  }
  const int watch = env->OpenExitWatch(p.pid);
  if (watch >= 0) CHECK(CloseOnExec(watch));
  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  CHECK(CloseOnExec(token.value().wait_fd()));
  token = Status::Error("x", "drop the token");

  CHECK(env->KillGroup(p.pid, SIGKILL) == 0);
  REQUIRE(waitpid(p.pid, nullptr, 0) == p.pid);
  for (int fd : {p.stdin_fd, p.stdout_fd, p.stderr_fd, watch}) {
    if (fd >= 0) CHECK(env->Close(fd) == 0);
  }
  CHECK(OpenFds() == fds);
}

TEST_CASE("Supervisor fault: an injected spawn failure is returned as is, with no polling") {
  FaultEnv env;
  env.spawn = [](const SpawnRequest&) -> Result<SpawnedProcess> {
    return Status::Error("child_spawn_failed", "spawn x: Resource temporarily unavailable");
  };
  Result<ChildOutcome> r = Supervisor(&env).Run(Misbehave({"echo"}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_spawn_failed");
  CHECK(env.polls() == 0);
}

TEST_CASE("Supervisor fault: EPIPE on the first stdin write is child_stdin_failed") {
  const auto fds = OpenFds();
  FaultEnv env;
  env.write = [](int, const char*, size_t) { return IoResult{-1, EPIPE}; };
  ChildSpec spec = Misbehave({"echo"});
  spec.stdin_data = "prompt";
  ChildOutcome out = MustRun(&env, spec);
  CHECK(out.status.code() == "child_stdin_failed");
  CHECK_THAT(out.status.message(), Catch::Contains("after 0 of 6 bytes"));
  CHECK(out.stdin_bytes_written == 0);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor fault: a clock jump past the default wall limit is child_timeout") {
  const auto fds = OpenFds();
  FaultEnv env;
  env.clock_jump = 51min;
  env.jump_after_clock_reads = 3;
  ChildSpec spec = Misbehave({"silent"});
  spec.limits = ChildLimits();  // the real defaults: 50 min wall, 35 min idle
  ChildOutcome out = MustRun(&env, spec);
  CHECK(out.status.code() == "child_timeout");
  CHECK(out.stop_reason == StopReason::kWallLimit);
  CHECK_THAT(out.status.message(), Catch::Contains("wall limit of 50 min"));
  CHECK(out.duration >= 50min);
  CHECK(out.term_signal == SIGTERM);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor fault: a clock jump past the idle limit only is the idle watchdog") {
  const auto fds = OpenFds();
  FaultEnv env;
  env.clock_jump = 36min;
  env.jump_after_clock_reads = 3;
  ChildSpec spec = Misbehave({"silent"});
  spec.limits = ChildLimits();
  ChildOutcome out = MustRun(&env, spec);
  CHECK(out.stop_reason == StopReason::kIdleLimit);
  CHECK_THAT(out.status.message(), Catch::Contains("35 min (idle limit)"));
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor fault: a clock jumping backwards neither fires limits nor goes negative") {
  const auto fds = OpenFds();
  FaultEnv env;
  env.clock_jump = -1h;
  env.jump_after_clock_reads = 3;
  ChildSpec spec = Misbehave({"echo"});
  spec.stdin_data = "back to the future";
  ChildOutcome out = MustRun(&env, spec);
  CHECK(out.status.ok());
  CHECK(out.stdout_bytes == spec.stdin_data);
  CHECK(out.duration >= 0ms);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor fault: a failing SIGTERM is reported and SIGKILL still ends the child") {
  const auto fds = OpenFds();
  FaultEnv env;
  env.kill_group = [&env](pid_t pgid, int sig) {
    return sig == SIGTERM ? EPERM : env.posix()->KillGroup(pgid, sig);
  };
  ChildLimits limits = RelaxedLimits();
  limits.idle = 200ms;
  ChildOutcome out = MustRun(&env, Misbehave({"silent"}, limits));
  CHECK(out.status.code() == "child_timeout");
  CHECK(out.term_signal == SIGKILL);
  REQUIRE(out.cleanup_errors.size() == 1);
  CHECK_THAT(out.cleanup_errors[0], Catch::Contains("SIGTERM") && Catch::Contains("permitted"));
  Status verdict = OutcomeStatus(out);
  CHECK(verdict.code() == "child_timeout");
  CHECK_THAT(verdict.message(), Catch::Contains("cleanup: kill("));
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor fault: a child reaped behind our back is reported, not hidden") {
  const auto fds = OpenFds();
  FaultEnv env;
  std::atomic<pid_t> seen{-1};
  env.check_exit = [&](pid_t pid, bool reap) -> Result<std::optional<ExitStatus>> {
    Result<std::optional<ExitStatus>> real = env.posix()->CheckExit(pid, /*reap=*/false);
    if (!reap && real.ok() && real.value().has_value()) {
      seen = pid;  // it exited; pretend someone else reaped it (SIGCHLD set to SIG_IGN)
      return Status::Error("child_exit_failed", "waitid: No child processes (errno 10)");
    }
    return real;
  };
  ChildOutcome out = MustRun(&env, Misbehave({"exit", "0"}));
  REQUIRE(seen.load() == out.pid);
  CHECK_FALSE(out.exit_code.has_value());
  REQUIRE_FALSE(out.cleanup_errors.empty());
  CHECK(OutcomeStatus(out).code() == "child_exit_failed");
  CHECK_THAT(OutcomeStatus(out).message(), Catch::Contains("No child processes"));
  REQUIRE(waitpid(out.pid, nullptr, 0) == out.pid);  // the test plays the other reaper
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor fault: a failing poll stops the child and is reported") {
  struct Row {
    const char* what;
    std::function<int(int)> fault;
  };
  const std::vector<Row> rows = {
      {"one failure", [](int calls) { return calls == 2 ? -ENOMEM : 0; }},
      {"every poll fails", [](int calls) { return calls >= 2 ? -ENOMEM : 0; }},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    const auto fds = OpenFds();
    FaultEnv env;
    env.poll_fault = row.fault;
    ChildOutcome out = MustRun(&env, Misbehave({"silent"}));
    CHECK(out.stop_reason == StopReason::kSupervisorError);
    CHECK(out.status.code() == "child_exit_failed");
    REQUIRE(out.cleanup_errors.size() == 1);
    CHECK_THAT(out.cleanup_errors[0], Catch::Contains("Cannot allocate memory"));
    CHECK(out.term_signal == SIGTERM);
    CHECK_CHILD_CLEAN(out, fds);
  }
}

TEST_CASE("Supervisor fallback: without pidfd, exits are found by polling waitid") {
  const auto fds = OpenFds();
  std::unique_ptr<ProcessEnv> env = NewPosixProcessEnv({.use_pidfd = false});
  ChildSpec echo = Misbehave({"echo"});
  echo.stdin_data = std::string(200 * 1024, 'f');
  ChildOutcome out = MustRun(env.get(), echo);
  CHECK(out.exit_code == 0);
  CHECK(out.stdout_bytes == echo.stdin_data);

  ChildLimits limits = RelaxedLimits();
  limits.idle = 200ms;
  ChildOutcome idle = MustRun(env.get(), Misbehave({"ignore-term"}, limits));
  CHECK(idle.stop_reason == StopReason::kIdleLimit);
  CHECK(idle.term_signal == SIGKILL);

  ChildOutcome gc = MustRun(env.get(), Misbehave({"grandchild"}));
  CHECK(gc.group_outlived_leader);
  CHECK(gc.exit_code == 0);
  CHECK_CHILD_CLEAN(gc, fds);
}

// Children that die with their parent are always forked by hand (posix_spawn cannot arm the
// parent-death signal); the others take posix_spawn unless the fork path is forced. Each way
// spawns the same child.
void CheckSpawnPath(ProcessEnv* env, bool die_with_parent) {
  const auto fds = OpenFds();
  auto Misbehave = [&](std::vector<std::string> args) {
    ChildSpec spec = testing::Misbehave(std::move(args));
    spec.die_with_parent = die_with_parent;
    return spec;
  };
  ChildSpec cwd = Misbehave({"pwd-env", "ONLY_VAR"});
  cwd.cwd = "/tmp";
  cwd.env = {"ONLY_VAR=1"};
  ChildOutcome out = MustRun(env, cwd);
  CHECK(out.stdout_bytes == "/tmp\nONLY_VAR=1\n");

  CHECK(MustRun(env, Misbehave({"fds"})).stdout_bytes == "fds:\n");
  CHECK(MustRun(env, Misbehave({"sigstate"})).stdout_bytes == "pipe=default mask=empty\n");

  ChildSpec path;
  path.argv = {"sh", "-c", "echo via-path"};
  path.search_path = true;
  path.die_with_parent = die_with_parent;
  CHECK(MustRun(env, path).stdout_bytes == "via-path\n");

  ChildSpec missing = Misbehave({"echo"});
  missing.argv[0] = "/nonexistent/binary";
  Result<ChildOutcome> r = Supervisor(env).Run(missing);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_spawn_failed");
  ChildSpec bad_cwd = Misbehave({"echo"});
  bad_cwd.cwd = "/nonexistent/dir";
  r = Supervisor(env).Run(bad_cwd);
  REQUIRE_FALSE(r.ok());
  CHECK_CHILD_CLEAN(out, fds);
}

// A pipe whose write end the child inherits as descriptor 3 (the first-request signal's way).
void CheckInheritedPipe(ProcessEnv* env, bool die_with_parent) {
  const auto fds = OpenFds();
  // In a test binary with few descriptors open, our ends are likely 3 and 4 themselves: the
  // write end may be its own target, and the read end sits where a careless dup2 would land.
  int ends[2];
  REQUIRE(pipe2(ends, O_CLOEXEC | O_NONBLOCK) == 0);
  ChildSpec spec = Misbehave({"write-fd", "3", "signal"});
  spec.die_with_parent = die_with_parent;
  spec.inherit_fds = {ends[1]};
  ChildOutcome out = MustRun(env, spec);
  // Exactly descriptor 3 beyond stdio, and it is our pipe.
  CHECK(out.stdout_bytes == "fds: 3\n");
  char bytes[16] = {};
  CHECK(read(ends[0], bytes, sizeof(bytes)) == 6);
  CHECK(std::string(bytes) == "signal");
  // Without it the same child has nothing on 3 (its write fails, exit 95).
  ChildSpec plain = Misbehave({"write-fd", "3", "x"});
  plain.die_with_parent = die_with_parent;
  ChildOutcome none = MustRun(env, plain);
  CHECK(none.exit_code == 95);
  close(ends[0]);
  close(ends[1]);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: inherited descriptors become 3.. in the child on every spawn path") {
  std::unique_ptr<ProcessEnv> posix = NewPosixProcessEnv();
  std::unique_ptr<ProcessEnv> forked = NewPosixProcessEnv({.force_fork_spawn = true});
  SECTION("posix_spawn") { CheckInheritedPipe(posix.get(), /*die_with_parent=*/false); }
  SECTION("fork, forced") { CheckInheritedPipe(forked.get(), /*die_with_parent=*/false); }
  SECTION("fork, dying with the parent") { CheckInheritedPipe(posix.get(), true); }
  SECTION("a bad list is child_spawn_failed and spawns nothing") {
    ChildSpec negative = Misbehave({"fds"});
    negative.inherit_fds = {-1};
    Result<ChildOutcome> r = Supervisor(posix.get()).Run(negative);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == "child_spawn_failed");
    ChildSpec many = Misbehave({"fds"});
    many.inherit_fds = {0, 0, 0, 0, 0};
    r = Supervisor(posix.get()).Run(many);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == "child_spawn_failed");
  }
}

TEST_CASE("Supervisor fallback: fork + exec spawning behaves like posix_spawn") {
  std::unique_ptr<ProcessEnv> posix = NewPosixProcessEnv();
  std::unique_ptr<ProcessEnv> forked = NewPosixProcessEnv({.force_fork_spawn = true});
  SECTION("posix_spawn") { CheckSpawnPath(posix.get(), /*die_with_parent=*/false); }
  SECTION("fork, forced") { CheckSpawnPath(forked.get(), /*die_with_parent=*/false); }
  SECTION("fork, dying with the parent") { CheckSpawnPath(posix.get(), /*die_with_parent=*/true); }
}

}  // namespace
}  // namespace pi_fusion::process
