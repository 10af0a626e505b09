// pi-fusion-walk: runs one of the candidates' walkers (ripgrep or fd) inside the walk jail
// (src/process/walk_jail.h). The candidates' grep and find start this program rather than the
// walker itself, so the namespace and Landlock are set up in a process of our own, between its
// start and the walker's exec, and never in the addon. A program of its own, linked with nothing
// but the process layer, because it runs once per grep: pi-fusion's start (libcurl, OpenSSL, …)
// would cost more than the jail. See docs/cli/walk.md and docs/security.md.
//
//   pi-fusion-walk --project DIR [--start REL] [--mask REL]...
//                  [--target REL --outside-target PATH] -- WALKER [ARGS...]
//
// Before the exec it writes one line to stderr, "pi-fusion walk: protection=<name>\n", which
// the caller strips and records. Exit 2 on a usage error, 127 when the walker cannot be
// started, 126 when the walk's start cannot be reached inside the jail.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "process/walk_jail.h"

namespace {

// Ends the process at once. Inside the jail there is no /proc, where a sanitizer build's
// LeakSanitizer lists the threads it stops at exit: a normal exit would turn every error into
// its fatal report. Nothing here needs a cleanup.
[[noreturn]] void Leave(int code) {
  std::fflush(stderr);
  ::_exit(code);
}

// The walker's environment: this process's, except in a sanitizer build, where the tests' Node
// hands every process the ASan runtime in LD_PRELOAD. The walker is a system tool, not ours, and
// that runtime cannot work without /proc; it gets what tests/support/sanitizer_env.mjs gives
// every system tool. Other builds pass the environment through unchanged.
std::vector<char*> WalkerEnvironment() {
  std::vector<char*> env;
  for (char** entry = environ; *entry != nullptr; ++entry) {
#if defined(__SANITIZE_ADDRESS__)
    const std::string_view name = std::string_view(*entry).substr(0, std::strcspn(*entry, "="));
    if (name == "LD_PRELOAD" || name == "ASAN_OPTIONS" || name == "LSAN_OPTIONS" ||
        name == "UBSAN_OPTIONS") {
      continue;
    }
#endif
    env.push_back(*entry);
  }
  env.push_back(nullptr);
  return env;
}

struct WalkFlags {
  pi_fusion::process::WalkJailSpec jail;
  std::string target;          // project-relative path appended for a walk of one file
  std::string outside_target;  // what to append instead when the namespace did not hold
  std::vector<std::string> walker;
};

bool Parse(int argc, char** argv, WalkFlags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") {
      flags->walker.assign(argv + i + 1, argv + argc);
      return !flags->walker.empty() && !flags->jail.project.empty() &&
             flags->jail.project.front() == '/' && flags->walker.front().front() == '/';
    }
    if (i + 1 >= argc) return false;
    const std::string value = argv[++i];
    if (arg == "--project") {
      flags->jail.project = value;
    } else if (arg == "--start") {
      flags->jail.start = value;
    } else if (arg == "--mask") {
      flags->jail.masked.push_back(value);
    } else if (arg == "--target") {
      flags->target = value;
    } else if (arg == "--outside-target") {
      flags->outside_target = value;
    } else {
      return false;
    }
  }
  return false;
}

int Walk(const WalkFlags& flags) {
  const std::string& exe = flags.walker.front();
  const int exe_fd = ::open(exe.c_str(), O_PATH | O_CLOEXEC);
  if (exe_fd < 0) {
    std::fprintf(stderr, "pi-fusion walk: cannot open %s: %s\n", exe.c_str(), std::strerror(errno));
    return 127;
  }
  const pi_fusion::process::WalkProtection held =
      pi_fusion::process::EnterWalkJail(flags.jail, exe_fd);
  std::vector<std::string> args = flags.walker;
  if (held.mount_namespace) {
    // Inside, the project is at its own path and nothing is followed through a symlink.
    const std::string start = flags.jail.project + "/" + flags.jail.start;
    if (::chdir(start.c_str()) != 0) {
      std::fprintf(stderr, "pi-fusion walk: the walk's start is gone: %s\n", std::strerror(errno));
      Leave(126);
    }
    if (!flags.target.empty()) args.push_back(flags.jail.project + "/" + flags.target);
  } else if (!flags.outside_target.empty()) {
    args.push_back(flags.outside_target);
  }
  std::fprintf(stderr, "pi-fusion walk: protection=%s\n", held.Name().c_str());
  std::fflush(stderr);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execveat(exe_fd, "", argv.data(), WalkerEnvironment().data(), AT_EMPTY_PATH);
  std::fprintf(stderr, "pi-fusion walk: cannot run %s: %s\n", exe.c_str(), std::strerror(errno));
  Leave(127);
}

}  // namespace

int main(int argc, char** argv) {
  WalkFlags flags;
  if (!Parse(argc, argv, &flags)) {
    std::fprintf(stderr,
                 "usage: pi-fusion-walk --project DIR [--start REL] [--mask REL]... [--target REL "
                 "--outside-target PATH] -- /ABSOLUTE/WALKER [ARGS...]\n");
    return 2;
  }
  return Walk(flags);
}
