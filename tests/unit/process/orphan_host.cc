// orphan_host: a stand-in host for the parent-death tests.
//
//   orphan_host <child> [survivable]
//
// Spawns <child> through ProcessEnv::Spawn from a short-lived thread that exits at once (as a
// worker thread of a real host may), prints "child <pid>" and sleeps until it is killed. With
// `survivable` the child is spawned without die_with_parent, so the test can show that its check
// sees an orphan when there is one.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>

#include "process/process_env.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  pi_fusion::process::SpawnRequest request;
  request.argv = {argv[1], "silent"};
  request.env = {"PATH=/usr/bin:/bin"};
  request.die_with_parent = !(argc > 2 && std::strcmp(argv[2], "survivable") == 0);
  std::unique_ptr<pi_fusion::process::ProcessEnv> env = pi_fusion::process::NewPosixProcessEnv();
  pid_t pid = -1;
  std::thread([&] {
    auto spawned = env->Spawn(request);
    if (spawned.ok()) pid = spawned->pid;
  }).join();
  if (pid < 0) return 3;
  std::printf("child %d\n", static_cast<int>(pid));
  std::fflush(stdout);
  for (;;) pause();
}
