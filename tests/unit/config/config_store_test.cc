// ConfigStore against the real POSIX file system in a temp dir, with a fake lock clock so the
// 10 s lock timeout takes no time.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "config/config_store.h"
#include "core/file_system.h"
#include "temp_dir.h"

namespace pi_fusion::config {
namespace {

namespace fs = std::filesystem;

// The lock wait reads Now and sleeps; sleeping advances the fake's time instead.
class FakeClock : public Clock {
 public:
  TimePoint Now() const override { return now_; }
  WallTimePoint WallNow() const override { return {}; }
  void SleepFor(std::chrono::milliseconds duration) const override {
    now_ += duration;
    ++sleeps;
    if (on_sleep) on_sleep(sleeps);
  }
  mutable int sleeps = 0;
  std::function<void(int)> on_sleep;

 private:
  mutable TimePoint now_{};
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Spit(const std::string& path, const std::string& bytes) { std::ofstream(path) << bytes; }

mode_t ModeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

ModelsConfig Sample() {
  ModelsConfig config;
  config.candidates[0] = "local/scripted-a";
  config.evaluator = "local/scripted-b";
  return config;
}

TEST_CASE("ConfigStore: a missing file means five $current slots") {
  TempDir dir;
  FakeClock clock;
  ConfigStore store(dir.path() + "/agent", PosixFileSystem(), clock);
  auto loaded = store.Load();
  REQUIRE(loaded.ok());
  CHECK(loaded->config == ModelsConfig{});
  CHECK(loaded->revision == Revision{dir.path() + "/agent/fusion-models.json", false, ""});
  CHECK(RevisionToJson(loaded->revision)["sha256"].is_null());
}

TEST_CASE("ConfigStore: save creates a private directory and file, then loads back") {
  TempDir dir;
  FakeClock clock;
  const std::string agent = dir.path() + "/home/.pi/agent";
  ConfigStore store(agent, PosixFileSystem(), clock);
  auto loaded = store.Load();
  REQUIRE(loaded.ok());
  auto saved = store.Save(Sample(), loaded->revision);
  REQUIRE(saved.ok());
  CHECK(ModeOf(agent) == 0700);
  CHECK(ModeOf(dir.path() + "/home") == 0700);
  CHECK(ModeOf(store.path()) == 0600);
  CHECK(Slurp(store.path()) == *SerializeModelsConfig(Sample()));
  CHECK_FALSE(fs::exists(store.lock_path()));
  CHECK(clock.sleeps == 0);
  auto again = store.Load();
  REQUIRE(again.ok());
  CHECK(again->config == Sample());
  CHECK(again->revision == *saved);
  CHECK(saved->sha256.rfind("sha256:", 0) == 0);
  // Saving again from the new revision works: revisions chain.
  ModelsConfig next = Sample();
  next.merger = "local/scripted-c";
  CHECK(store.Save(next, *saved).ok());
}

TEST_CASE("ConfigStore: an existing agent directory keeps its mode") {
  TempDir dir;
  FakeClock clock;
  ::chmod(dir.path().c_str(), 0755);
  ConfigStore store(dir.path(), PosixFileSystem(), clock);
  REQUIRE(store.Save(Sample(), store.Load()->revision).ok());
  CHECK(ModeOf(dir.path()) == 0755);
}

TEST_CASE("ConfigStore: revision conflicts refuse to overwrite") {
  TempDir dir;
  FakeClock clock;
  ConfigStore store(dir.path(), PosixFileSystem(), clock);
  SECTION("file created by someone else after load") {
    const Revision loaded = store.Load()->revision;
    const std::string theirs = *SerializeModelsConfig(ModelsConfig{});
    Spit(store.path(), theirs);
    auto saved = store.Save(Sample(), loaded);
    REQUIRE_FALSE(saved.ok());
    CHECK(saved.status().code() == "config_conflict");
    CHECK_THAT(saved.status().message(), Catch::Contains("changed since /fusion-models loaded"));
    CHECK(Slurp(store.path()) == theirs);
  }
  SECTION("file edited after load") {
    REQUIRE(store.Save(Sample(), store.Load()->revision).ok());
    const Revision loaded = store.Load()->revision;
    Spit(store.path(), Slurp(store.path()) + " ");
    CHECK(store.Save(ModelsConfig{}, loaded).status().code() == "config_conflict");
  }
  SECTION("file deleted after load") {
    REQUIRE(store.Save(Sample(), store.Load()->revision).ok());
    const Revision loaded = store.Load()->revision;
    fs::remove(store.path());
    CHECK(store.Save(ModelsConfig{}, loaded).status().code() == "config_conflict");
    CHECK_FALSE(fs::exists(store.path()));
  }
  SECTION("two selectors loaded the same revision: the second save loses") {
    const Revision loaded = store.Load()->revision;
    REQUIRE(store.Save(Sample(), loaded).ok());
    CHECK(store.Save(ModelsConfig{}, loaded).status().code() == "config_conflict");
    CHECK(store.Load()->config == Sample());
  }
  CHECK_FALSE(fs::exists(store.lock_path()));
}

TEST_CASE("ConfigStore: a held lock times out after 10 s with config_conflict") {
  TempDir dir;
  FakeClock clock;
  ConfigStore store(dir.path(), PosixFileSystem(), clock);
  Spit(store.lock_path(), "4242\n");
  auto saved = store.Save(Sample(), store.Load()->revision);
  REQUIRE_FALSE(saved.ok());
  CHECK(saved.status().code() == "config_conflict");
  CHECK_THAT(saved.status().message(), Catch::Contains(store.lock_path() + " (pid 4242)") &&
                                           Catch::Contains("within 10 s") &&
                                           Catch::Contains("delete the lock file"));
  CHECK(clock.sleeps == 10000 / 25);     // retried every 25 ms for 10 s
  CHECK(fs::exists(store.lock_path()));  // never broken
  CHECK(Slurp(store.lock_path()) == "4242\n");
  CHECK_FALSE(fs::exists(store.path()));
}

TEST_CASE("ConfigStore: a lock released while waiting is taken") {
  TempDir dir;
  FakeClock clock;
  ConfigStore store(dir.path(), PosixFileSystem(), clock);
  Spit(store.lock_path(), "4242\n");
  clock.on_sleep = [&](int sleeps) {
    if (sleeps == 3) fs::remove(store.lock_path());
  };
  auto saved = store.Save(Sample(), store.Load()->revision);
  REQUIRE(saved.ok());
  CHECK(clock.sleeps == 3);
  CHECK_FALSE(fs::exists(store.lock_path()));
  CHECK(store.Load()->config == Sample());
}

// Observes the lock while the durable write is in progress.
class LockObserver : public FileSystemWrapper {
 public:
  LockObserver(FileSystem& target, std::string lock_path)
      : FileSystemWrapper(target), lock_path_(std::move(lock_path)) {}
  Status Rename(const std::string& from, const std::string& to) override {
    lock_content = Slurp(lock_path_);
    lock_mode = ModeOf(lock_path_);
    if (fail_rename) return Status::Error(kFsIoError, "rename: injected");
    return FileSystemWrapper::Rename(from, to);
  }
  std::string lock_content;
  mode_t lock_mode = 0;
  bool fail_rename = false;

 private:
  std::string lock_path_;
};

TEST_CASE("ConfigStore: the lock holds our pid, mode 0600, during the write") {
  TempDir dir;
  FakeClock clock;
  LockObserver observer(PosixFileSystem(), dir.path() + "/.fusion-models.json.lock");
  ConfigStore store(dir.path(), observer, clock);
  REQUIRE(store.Save(Sample(), store.Load()->revision).ok());
  CHECK(observer.lock_content == std::to_string(::getpid()) + "\n");
  CHECK(observer.lock_mode == 0600);
}

TEST_CASE("ConfigStore: a failed write keeps the old file and releases the lock") {
  TempDir dir;
  FakeClock clock;
  LockObserver observer(PosixFileSystem(), dir.path() + "/.fusion-models.json.lock");
  ConfigStore store(dir.path(), observer, clock);
  REQUIRE(store.Save(Sample(), store.Load()->revision).ok());
  const std::string before = Slurp(store.path());
  observer.fail_rename = true;
  auto saved = store.Save(ModelsConfig{}, store.Load()->revision);
  REQUIRE_FALSE(saved.ok());
  CHECK(saved.status().code() == "artifact_error");
  CHECK_THAT(saved.status().message(), Catch::Contains("Cannot save " + store.path()));
  CHECK(Slurp(store.path()) == before);
  CHECK_FALSE(fs::exists(store.lock_path()));
}

TEST_CASE("ConfigStore: invalid input is refused before any lock or write") {
  TempDir dir;
  FakeClock clock;
  ConfigStore store(dir.path() + "/agent", PosixFileSystem(), clock);
  ModelsConfig bad;
  bad.candidates[1] = "";
  auto saved = store.Save(bad, store.Load()->revision);
  CHECK(saved.status().code() == "config_invalid");
  CHECK_THAT(saved.status().message(), Catch::Contains("Candidate 2 must not be blank"));
  CHECK_FALSE(fs::exists(dir.path() + "/agent"));
}

TEST_CASE("ConfigStore: a broken file is config_invalid on load, yet can be saved over") {
  TempDir dir;
  FakeClock clock;
  ConfigStore store(dir.path(), PosixFileSystem(), clock);
  Spit(store.path(), "{\"schema_version\":\"v0\"}");
  auto loaded = store.Load();
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.status().code() == "config_invalid");
  CHECK_THAT(loaded.status().message(), Catch::StartsWith("Invalid " + store.path() + ": "));
  auto revision = store.CurrentRevision();
  REQUIRE(revision.ok());
  CHECK(revision->exists);
  CHECK(store.Save(Sample(), *revision).ok());
  CHECK(store.Load()->config == Sample());
}

}  // namespace
}  // namespace pi_fusion::config
