// misbehave: a deliberately badly behaved child for the supervisor tests.
//
//   misbehave echo                  copy stdin to stdout, exit 0
//   misbehave exit <code>           print "bye" on stdout and stderr, exit with <code>
//   misbehave signal <n>            kill itself with signal <n>
//   misbehave silent                write nothing, never exit
//   misbehave ignore-term           ignore SIGTERM, print "ready", never exit
//   misbehave flood-stdout          write to stdout for ever
//   misbehave flood-stderr          write to stderr for ever
//   misbehave trickle <ms>          write "." to stdout every <ms>, for ever
//   misbehave grandchild [stubborn] fork a grandchild that keeps stdout/stderr open and sleeps
//                                   (stubborn: it ignores SIGTERM); print "gc <pid>"; exit 0
//   misbehave escape                like grandchild, but the grandchild leaves the group
//                                   (setsid) and exits by itself after 3 s
//   misbehave close-stdin-exit      close stdin at once and exit 0
//   misbehave close-stdin-stay      close stdin at once, print "closed", never exit
//   misbehave no-read-flood <bytes> write <bytes> to stdout before reading any stdin, then read
//                                   stdin to EOF and print "read <n>" on stderr
//   misbehave pwd-env <NAME>...     print the cwd, then NAME=value (or NAME unset) per name
//   misbehave env-count             print the number of environment entries
//   misbehave fds                   print the descriptors above 2 it inherited ("fds: 3 7")
//   misbehave write-fd <fd> <text>  write <text> to descriptor <fd>, then print "fds: …" as fds
//   misbehave sigstate              print SIGPIPE's disposition and whether the mask is empty
//   misbehave sleep <ms>            sleep, print "slept", exit 0
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace {

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) _exit(99);
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void SleepForever() {
  for (;;) pause();
}

void SleepMs(long ms) { usleep(static_cast<useconds_t>(ms) * 1000); }

[[noreturn]] void Flood(int fd) {
  const std::string chunk(64 * 1024, 'x');
  for (;;) WriteAll(fd, chunk);
}

[[noreturn]] void Echo() {
  char buf[65536];
  for (;;) {
    ssize_t n = read(0, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(n == 0 ? 0 : 98);
    WriteAll(1, std::string(buf, static_cast<size_t>(n)));
  }
}

// Forks a grandchild that holds the inherited stdout/stderr; the leader exits once the
// grandchild is ready, so the test's SIGTERM can never beat the grandchild's setup.
[[noreturn]] void Grandchild(bool stubborn, bool escape) {
  int sync[2];
  if (pipe(sync) != 0) _exit(97);
  pid_t pid = fork();
  if (pid == 0) {
    if (stubborn) signal(SIGTERM, SIG_IGN);
    if (escape) setsid();
    WriteAll(1, "gc " + std::to_string(getpid()) + "\n");
    WriteAll(sync[1], "r");
    if (escape) {
      SleepMs(3000);
      _exit(0);
    }
    SleepForever();
  }
  char c;
  while (read(sync[0], &c, 1) < 0 && errno == EINTR) {
  }
  _exit(0);
}

[[noreturn]] void NoReadFlood(size_t bytes) {
  WriteAll(1, std::string(bytes, 'y'));
  char buf[65536];
  size_t total = 0;
  for (;;) {
    ssize_t n = read(0, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    total += static_cast<size_t>(n);
  }
  WriteAll(2, "read " + std::to_string(total) + "\n");
  _exit(0);
}

void PwdEnv(int argc, char** argv) {
  char cwd[4096];
  WriteAll(1, std::string(getcwd(cwd, sizeof(cwd)) ? cwd : "?") + "\n");
  for (int i = 2; i < argc; ++i) {
    const char* v = getenv(argv[i]);
    WriteAll(1, std::string(argv[i]) + (v ? std::string("=") + v : " unset") + "\n");
  }
}

void Fds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) _exit(96);
  std::string out = "fds:";
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    int fd = atoi(e->d_name);
    if (fd > 2 && fd != dirfd(dir)) out += " " + std::to_string(fd);
  }
  closedir(dir);
  WriteAll(1, out + "\n");
}

void SigState() {
  struct sigaction sa = {};
  sigaction(SIGPIPE, nullptr, &sa);
  sigset_t mask;
  sigprocmask(SIG_SETMASK, nullptr, &mask);
  bool empty = true;
  for (int s = 1; s < NSIG; ++s) {
    if (sigismember(&mask, s) == 1) empty = false;
  }
  WriteAll(1, std::string("pipe=") + (sa.sa_handler == SIG_IGN ? "ignored" : "default") +
                  " mask=" + (empty ? "empty" : "nonempty") + "\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* arg = argc > 2 ? argv[2] : "0";
  if (mode == "echo") Echo();
  if (mode == "exit") {
    WriteAll(1, "bye\n");
    WriteAll(2, "bye\n");
    return atoi(arg);
  }
  if (mode == "signal") {
    kill(getpid(), atoi(arg));
    SleepForever();
  }
  if (mode == "silent") SleepForever();
  if (mode == "ignore-term") {
    signal(SIGTERM, SIG_IGN);
    WriteAll(1, "ready\n");
    SleepForever();
  }
  if (mode == "flood-stdout") Flood(1);
  if (mode == "flood-stderr") Flood(2);
  if (mode == "trickle") {
    for (;;) {
      WriteAll(1, ".");
      SleepMs(atol(arg));
    }
  }
  if (mode == "grandchild") Grandchild(std::string(arg) == "stubborn", false);
  if (mode == "escape") Grandchild(false, true);
  if (mode == "close-stdin-exit") {
    close(0);
    return 0;
  }
  if (mode == "close-stdin-stay") {
    close(0);
    WriteAll(1, "closed\n");
    SleepForever();
  }
  if (mode == "no-read-flood") NoReadFlood(static_cast<size_t>(atol(arg)));
  if (mode == "pwd-env") {
    PwdEnv(argc, argv);
    return 0;
  }
  if (mode == "env-count") {
    size_t n = 0;
    for (char** e = environ; *e != nullptr; ++e) ++n;
    WriteAll(1, std::to_string(n) + "\n");
    return 0;
  }
  if (mode == "fds") {
    Fds();
    return 0;
  }
  if (mode == "write-fd" && argc > 3) {
    const std::string text = argv[3];
    if (write(atoi(argv[2]), text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
      return 95;
    }
    Fds();
    return 0;
  }
  if (mode == "sigstate") {
    SigState();
    return 0;
  }
  if (mode == "answer-then-exit" && argc > 3) {  // answer, linger <ms>, exit <code>
    WriteAll(1, "answer\n");
    SleepMs(atol(arg));
    return atoi(argv[3]);
  }
  if (mode == "sleep") {
    SleepMs(atol(arg));
    WriteAll(1, "slept\n");
    return 0;
  }
  fprintf(stderr, "misbehave: unknown mode '%s'\n", mode.c_str());
  return 2;
}
