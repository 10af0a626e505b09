#include "child/core/orphan_guard.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace pi_fusion::child {
namespace {

using namespace std::chrono_literals;

// How often the watcher looks at its parent. The signal is the fast path; this bounds the
// fallback well inside the two seconds a host's death may take to reach every process.
constexpr auto kWatchPeriod = 200ms;

// What to SIGKILL: the whole process group when we lead it (a Fusion child always does), else
// only ourselves, never a group we merely belong to (it may be a shell's or a test runner's).
// Set once before the handler is installed; read-only afterwards.
pid_t g_target = 0;

void KillTarget() { kill(g_target, SIGKILL); }

// Async-signal-safe: kill(2) only.
void OnParentDeath(int) { KillTarget(); }

#if defined(__linux__)
// A real-time signal: libuv, V8 and Node use none of them, so its handler is ours alone.
int ParentDeathSignal() { return SIGRTMIN + 4; }

// Takes the signal over unless someone else already handles it. True when it is ours.
bool InstallHandler(int sig) {
  struct sigaction old = {};
  if (sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) return false;
  struct sigaction action = {};
  action.sa_handler = OnParentDeath;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  return sigaction(sig, &action, nullptr) == 0;
}
#endif

void Arm() {
  const pid_t self = getpid();
  const pid_t parent = getppid();
  g_target = getpgrp() == self ? -self : self;
#if defined(__linux__)
  // Until here the host's SIGKILL stands guard (nothing of ours runs tools yet). Replace it with
  // the group-wide kill, or, if the signal is taken, switch it off and let the watcher act.
  const int sig = ParentDeathSignal();
  prctl(PR_SET_PDEATHSIG, InstallHandler(sig) ? sig : 0);
#endif
  if (getppid() != parent) KillTarget();  // the parent died while we re-armed
  try {
    std::thread([parent] {
      for (;;) {
        std::this_thread::sleep_for(kWatchPeriod);
        if (getppid() != parent) KillTarget();
      }
    }).detach();
  } catch (const std::system_error&) {
    // No thread to spare: the signal above still stands guard.
  }
}

}  // namespace

void ArmOrphanGuard() {
  static std::once_flag once;
  std::call_once(once, Arm);
}

}  // namespace pi_fusion::child
