// The owner-liveness rule: OwnerAlive sees the lock held by this process and by another one, and
// sees it free once released — including when the holder is SIGKILLed or has spawned a child that
// outlives it.
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/owner_lock.h"
#include "test_support.h"

extern char** environ;

using namespace pi_fusion::store;
using namespace pi_fusion::store::testing;

namespace {

pi_fusion::FileSystem& Posix() { return pi_fusion::PosixFileSystem(); }

bool Alive(const std::string& run_dir) {
  auto alive = OwnerAlive(Posix(), run_dir);
  REQUIRE(alive.ok());
  return alive.value();
}

// A forked process that takes `run_dir`'s owner lock, reports it over a pipe and then waits to be
// killed. Killed and reaped by the destructor if the test has not done so.
class LockHolder {
 public:
  explicit LockHolder(const std::string& run_dir) {
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::close(fds[0]);
      auto lock = AcquireOwnerLock(Posix(), run_dir);
      const char ok = lock.ok() ? '1' : '0';
      (void)!::write(fds[1], &ok, 1);
      for (;;) ::pause();
    }
    ::close(fds[1]);
    char ok = 0;
    REQUIRE(::read(fds[0], &ok, 1) == 1);
    ::close(fds[0]);
    REQUIRE(ok == '1');
  }
  ~LockHolder() { Kill(); }

  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

}  // namespace

TEST_CASE("OwnerAlive: a probe from the owning process sees its own lock held, then released",
          "[store][owner]") {
  TempDir dir;
  CHECK_FALSE(Alive(dir.path()));  // no owner.lock yet
  {
    auto lock = AcquireOwnerLock(Posix(), dir.path());
    REQUIRE(lock.ok());
    CHECK(ModeOf(dir.path() + "/" + kOwnerLockFile) == 0600);
    CHECK(Alive(dir.path()));
    CHECK(Alive(dir.path()));  // probing does not take or drop the lock
  }
  CHECK(Exists(dir.path() + "/" + kOwnerLockFile));
  CHECK_FALSE(Alive(dir.path()));
}

TEST_CASE("OwnerAlive: a lock held by another process is seen, and is free once it is killed",
          "[store][owner]") {
  TempDir dir;
  LockHolder holder(dir.path());
  CHECK(Alive(dir.path()));
  holder.Kill();
  CHECK_FALSE(Alive(dir.path()));
}

TEST_CASE("AcquireOwnerLock: a second owner is refused, in this process and in another",
          "[store][owner]") {
  TempDir dir;
  {
    auto first = AcquireOwnerLock(Posix(), dir.path());
    REQUIRE(first.ok());
    auto second = AcquireOwnerLock(Posix(), dir.path());
    CHECK(second.status().code() == pi_fusion::kArtifactError);
    CHECK(Alive(dir.path()));  // the refused attempt did not disturb the owner
  }
  LockHolder holder(dir.path());
  CHECK(AcquireOwnerLock(Posix(), dir.path()).status().code() == pi_fusion::kArtifactError);
  holder.Kill();
  CHECK(AcquireOwnerLock(Posix(), dir.path()).ok());  // a run's lock can be taken again
}

TEST_CASE("OwnerAlive: a child spawned by the owner does not keep the lock alive",
          "[store][owner]") {
  TempDir dir;
  pid_t child = -1;
  {
    auto lock = AcquireOwnerLock(Posix(), dir.path());
    REQUIRE(lock.ok());
    char sleep_path[] = "/bin/sleep";
    char seconds[] = "30";
    char* argv[] = {sleep_path, seconds, nullptr};
    REQUIRE(::posix_spawn(&child, sleep_path, nullptr, nullptr, argv, environ) == 0);
  }
  CHECK_FALSE(Alive(dir.path()));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST_CASE("OwnerAlive: a FIFO or symlink named owner.lock is an error, never a hang",
          "[store][owner]") {
  TempDir dir;
  const std::string path = dir.path() + "/" + kOwnerLockFile;
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK(OwnerAlive(Posix(), dir.path()).status().code() == pi_fusion::kArtifactError);
  CHECK(AcquireOwnerLock(Posix(), dir.path()).status().code() == pi_fusion::kArtifactError);
  REQUIRE(::unlink(path.c_str()) == 0);
  REQUIRE(::symlink("/etc/hostname", path.c_str()) == 0);
  CHECK(OwnerAlive(Posix(), dir.path()).status().code() == pi_fusion::kArtifactError);
  CHECK(AcquireOwnerLock(Posix(), dir.path()).status().code() == pi_fusion::kArtifactError);
}

TEST_CASE("RunStore: owns its run from before the first manifest until it is destroyed",
          "[store][owner]") {
  StoreFixture f;
  const std::string run_dir = f.store->run_dir();
  const auto log = f.fs.log();
  const auto lock_at = std::find(log.begin(), log.end(), std::string("lock:") + kOwnerLockFile);
  const auto manifest_at =
      std::find(log.begin(), log.end(), std::string("rename:") + kManifestFile);
  REQUIRE(lock_at != log.end());
  CHECK(lock_at < manifest_at);
  CHECK(Alive(run_dir));
  f.store.reset();
  CHECK_FALSE(Alive(run_dir));
}

TEST_CASE("RunStore: a run whose owner lock cannot be taken is not created", "[store][owner]") {
  TempDir dir;
  FixedClock clock;
  FaultFileSystem fs;
  fs.FailOn(FsOp::kLock, EIO);
  auto store = RunStore::Create(fs, clock, SampleSpec(dir.path()));
  CHECK(store.status().code() == pi_fusion::kArtifactError);
  for (const auto& entry : fs.log()) CHECK(entry.find(kManifestFile) == std::string::npos);
}
