// Children die with their host: a host killed by SIGKILL leaves no child behind, even when the
// thread that asked for the spawn ended long before.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "process/process_env.h"
#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::AliveNotZombie;

struct Host {
  pid_t host = -1;
  pid_t child = -1;
};

// Starts orphan_host and reads the pid of the child it spawned.
Host StartHost(ProcessEnv* env, bool survivable) {
  SpawnRequest request;
  request.argv = {PI_FUSION_ORPHAN_HOST_PATH, testing::MisbehavePath()};
  if (survivable) request.argv.push_back("survivable");
  request.env = {"PATH=/usr/bin:/bin"};
  Result<SpawnedProcess> spawned = env->Spawn(request);
  REQUIRE(spawned.ok());
  std::string out;
  char buffer[64];
  while (out.find('\n') == std::string::npos) {
    pollfd fd{spawned->stdout_fd, POLLIN, 0};
    REQUIRE(poll(&fd, 1, 5000) == 1);
    IoResult r = env->Read(spawned->stdout_fd, buffer, sizeof(buffer));
    REQUIRE(r.bytes > 0);
    out.append(buffer, static_cast<size_t>(r.bytes));
  }
  for (int fd : {spawned->stdin_fd, spawned->stdout_fd, spawned->stderr_fd}) env->Close(fd);
  REQUIRE(out.rfind("child ", 0) == 0);
  return Host{spawned->pid, std::stoi(out.substr(6))};
}

// Polls until `pid` is gone (or a zombie awaiting its new parent), up to `timeout`.
bool GoneWithin(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (AliveNotZombie(pid)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    usleep(10 * 1000);
  }
  return true;
}

void KillAndReap(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST_CASE("Parent death: a child outlives the thread that spawned it, not its host process") {
  std::unique_ptr<ProcessEnv> env = NewPosixProcessEnv();
  Host h = StartHost(env.get(), /*survivable=*/false);
  // The spawning thread has ended; the child must still run.
  usleep(300 * 1000);
  CHECK(AliveNotZombie(h.child));
  KillAndReap(h.host);
  CHECK(GoneWithin(h.child, 2s));
  if (AliveNotZombie(h.child)) kill(h.child, SIGKILL);
}

TEST_CASE("Parent death: without die_with_parent the same check sees the orphan") {
  std::unique_ptr<ProcessEnv> env = NewPosixProcessEnv();
  Host h = StartHost(env.get(), /*survivable=*/true);
  KillAndReap(h.host);
  CHECK_FALSE(GoneWithin(h.child, 500ms));
  kill(h.child, SIGKILL);
  CHECK(GoneWithin(h.child, 2s));
}

}  // namespace
}  // namespace pi_fusion::process
