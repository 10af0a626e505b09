// Helpers shared by the process-layer tests: the misbehave child, fast limits, and the hygiene
// checks every real-child test ends with (no live group member, our pid reaped, no descriptor
// leaked).
#pragma once

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "process/cancel_token.h"
#include "process/supervisor.h"

namespace pi_fusion::process::testing {

using namespace std::chrono_literals;

inline std::string MisbehavePath() { return PI_FUSION_MISBEHAVE_PATH; }

// Limits that fire only when a test means them to: generous for everything the test does not
// exercise, so a loaded 2-core machine cannot trip them by accident.
inline ChildLimits RelaxedLimits() {
  ChildLimits limits;
  limits.wall = 30s;
  limits.idle = 30s;
  limits.term_grace = 200ms;
  limits.kill_wait = 5s;
  limits.progress_interval = 0ms;
  return limits;
}

inline ChildSpec Misbehave(std::vector<std::string> args, ChildLimits limits = RelaxedLimits()) {
  ChildSpec spec;
  spec.argv = {MisbehavePath()};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.env = {"PATH=/usr/bin:/bin"};
  spec.limits = limits;
  return spec;
}

inline std::set<int> OpenFds() {
  std::set<int> fds;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return fds;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    int fd = std::atoi(e->d_name);
    if (fd != dirfd(dir)) fds.insert(fd);
  }
  closedir(dir);
  return fds;
}

// Process state ('R', 'S', 'Z', ...) and process group of `pid` from /proc, or false if gone.
inline bool ReadProcStat(pid_t pid, char* state, pid_t* pgrp) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return false;
  size_t close = line.rfind(')');  // the command name may itself contain ') '
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 2));
  pid_t ppid = 0;
  rest >> *state >> ppid >> *pgrp;
  return !rest.fail();
}

// True when a process is alive, i.e. exists and is not a zombie. (Zombie grandchildren are
// re-parented to init, which reaps them on its own schedule; they run no code.)
inline bool AliveNotZombie(pid_t pid) {
  char state = 0;
  pid_t pgrp = 0;
  return ReadProcStat(pid, &state, &pgrp) && state != 'Z' && state != 'X';
}

inline int LiveGroupMembers(pid_t pgid) {
  int live = 0;
  DIR* dir = opendir("/proc");
  if (dir == nullptr) return -1;
  while (dirent* e = readdir(dir)) {
    pid_t pid = std::atoi(e->d_name);
    char state = 0;
    pid_t pgrp = 0;
    if (pid > 0 && ReadProcStat(pid, &state, &pgrp) && pgrp == pgid && state != 'Z' &&
        state != 'X') {
      ++live;
    }
  }
  closedir(dir);
  return live;
}

// kill(-pgid, 0) == ESRCH, or every remaining member is a zombie awaiting init. Waits up to
// `timeout` because SIGKILLed grandchildren take a moment to die.
inline bool GroupGone(pid_t pgid, std::chrono::milliseconds timeout = 5s) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (kill(-pgid, 0) != 0 && errno == ESRCH) return true;
    if (LiveGroupMembers(pgid) == 0) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
}

// Our child is reaped: waitpid no longer knows it.
inline bool Reaped(pid_t pid) { return waitpid(pid, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// The pid printed by `misbehave grandchild|escape` ("gc <pid>").
inline pid_t GrandchildPid(const std::string& stdout_bytes) {
  size_t at = stdout_bytes.find("gc ");
  return at == std::string::npos ? -1 : std::atoi(stdout_bytes.c_str() + at + 3);
}

// RunChild(spec, cancel, progress), which must succeed: the test stops with the status otherwise.
inline ChildOutcome MustRun(const ChildSpec& spec, const CancelToken& cancel = CancelToken(),
                            const ProgressCallback& progress = nullptr) {
  Result<ChildOutcome> r = RunChild(spec, cancel, progress);
  INFO((r.ok() ? std::string("ok") : r.status().ToString()));
  REQUIRE(r.ok());
  return std::move(r).value();
}

}  // namespace pi_fusion::process::testing

// Every real-child test ends with these: the group has no live member, our pid is reaped, and
// the set of open descriptors is what it was before the run.
#define CHECK_CHILD_CLEAN(outcome, fds_before)                       \
  do {                                                               \
    CHECK(::pi_fusion::process::testing::GroupGone((outcome).pid));  \
    CHECK(::pi_fusion::process::testing::Reaped((outcome).pid));     \
    CHECK(::pi_fusion::process::testing::OpenFds() == (fds_before)); \
  } while (0)
