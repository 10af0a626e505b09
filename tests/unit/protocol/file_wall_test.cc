// The FileWall on real trees: protected places, special files, and what is opened being what was
// vetted (a symlink swapped in after the name looked fine).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "child/core/file_wall.h"

namespace pi_fusion::child {
namespace {

namespace fs = std::filesystem;

// <tmp>/project with a run store, credentials, a FIFO; <tmp>/outside.txt.
struct Tree {
  Tree() {
    std::string pattern = (fs::temp_directory_path() / "wall-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
    project = root + "/project";
    for (const char* dir : {"/src", "/.pi/fusion/s-1/run", "/.ssh", "/.config/gcloud", "/.docker",
                            "/home/.pi/agent"}) {
      fs::create_directories(project + dir);
    }
    for (const char* file :
         {"/src/a.txt", "/.pi/fusion/s-1/run/canonical-input.json", "/.pi/settings.json",
          "/.ssh/id_ed25519", "/.env", "/.env.local", "/.env.example", "/.env.prod.sample",
          "/.npmrc", "/.docker/config.json", "/.config/gcloud/creds.json",
          "/home/.pi/agent/auth.json"}) {
      std::ofstream(project + file) << "data";
    }
    std::ofstream(root + "/outside.txt") << "secret";
    ::mkfifo((project + "/pipe").c_str(), 0600);
    fs::create_symlink(".pi/fusion", project + "/store-link");
    fs::create_symlink("../outside.txt", project + "/out");
    auto wall_or = FileWall::Open(project, project + "/home/.pi/agent");
    REQUIRE(wall_or.ok());
    wall = *wall_or;
  }
  ~Tree() { fs::remove_all(root); }

  std::string Code(const std::string& relative, WallWant want = WallWant::kAny) {
    Result<VettedObject> v = wall->Vet(project + "/" + relative, relative, want);
    return v.ok() ? "ok" : v.status().code();
  }

  std::string root, project;
  std::shared_ptr<const FileWall> wall;
};

TEST_CASE("ProtectedReason: the run store, Pi's data and the credential set") {
  for (const char* p : {".pi/fusion", ".pi/fusion/x/y", "a/.pi/fusion/b", ".ssh", "x/.ssh/id",
                        ".gnupg/k", ".aws/credentials", ".azure/a", ".config/gcloud/x", ".kube/c",
                        ".docker/config.json", ".netrc", ".npmrc", ".pypirc", ".git-credentials",
                        ".env", "sub/.env.local", ".pi/agent/auth.json", "agentdir/models.json"}) {
    INFO(p);
    CHECK(ProtectedReason(p, "agentdir"));
  }
  for (const char* p : {"", ".pi", ".pi/settings.json", ".env.example", ".env.local.sample",
                        ".env.template", ".config", ".config/other", ".docker/other.json", "fusion",
                        "src/env", ".envrc", "agentdirx"}) {
    INFO(p);
    CHECK_FALSE(ProtectedReason(p, "agentdir"));
  }
  CHECK(std::string(ProtectedReason(".pi/fusion/r", "")->code) == kPathInRunStore);
  CHECK(std::string(ProtectedReason(".ssh", "")->code) == kPathProtected);
}

TEST_CASE("LexicalPath: dots and empty parts collapse, never above the start") {
  CHECK(LexicalPath("/a/./b/../c/") == "a/c");
  CHECK(LexicalPath("a//c") == "a/c");
  CHECK(LexicalPath("../../x") == "x");
  CHECK(LexicalPath("./") == "");
}

TEST_CASE("PiAgentDir: PI_CODING_AGENT_DIR with ~, else ~/.pi/agent") {
  CHECK(PiAgentDir(std::nullopt, "/h") == "/h/.pi/agent");
  CHECK(PiAgentDir(std::string(""), "/h") == "/h/.pi/agent");
  CHECK(PiAgentDir(std::string("~/x"), "/h") == "/h/x");
  CHECK(PiAgentDir(std::string("/a/b"), "/h") == "/a/b");
}

TEST_CASE("FileWall::Vet: protected places are refused by name and through symlinks") {
  Tree t;
  CHECK(t.Code("src/a.txt", WallWant::kFile) == "ok");
  CHECK(t.Code(".env.example", WallWant::kFile) == "ok");
  CHECK(t.Code(".env.prod.sample") == "ok");
  CHECK(t.Code(".pi/settings.json") == "ok");
  CHECK(t.Code(".pi/fusion/s-1/run/canonical-input.json") == kPathInRunStore);
  CHECK(t.Code(".pi/fusion") == kPathInRunStore);
  CHECK(t.Code("store-link") == kPathInRunStore);  // a symlink to the store
  CHECK(t.Code("store-link/s-1/run/canonical-input.json") == kPathInRunStore);
  CHECK(t.Code(".ssh/id_ed25519") == kPathProtected);
  CHECK(t.Code(".env") == kPathProtected);
  CHECK(t.Code(".env.local") == kPathProtected);
  CHECK(t.Code(".npmrc") == kPathProtected);
  CHECK(t.Code(".docker/config.json") == kPathProtected);
  CHECK(t.Code(".config/gcloud/creds.json") == kPathProtected);
  CHECK(t.Code("home/.pi/agent/auth.json") == kPathProtected);
  CHECK(t.Code("out") == kPathOutsideProject);
  CHECK(t.Code("../outside.txt") == kPathOutsideProject);
  CHECK(t.Code("missing") == kPathNotFound);
  CHECK(t.Code("src", WallWant::kFile) == "path_is_directory");
}

TEST_CASE("FileWall::Vet: a FIFO is refused at once, without being opened for reading") {
  Tree t;
  // A FIFO with no writer would block an open for reading; the wall's O_PATH open does not.
  CHECK(t.Code("pipe") == kPathNotRegular);
  CHECK(t.Code("pipe", WallWant::kFile) == kPathNotRegular);
}

TEST_CASE("FileWall::List and HiddenInWalk leave out the store, credentials and FIFOs") {
  Tree t;
  Result<VettedObject> top = t.wall->Vet(t.project, ".", WallWant::kDirectory);
  REQUIRE(top.ok());
  Result<std::vector<std::string>> names = t.wall->List(*top);
  REQUIRE(names.ok());
  std::set<std::string> listed(names->begin(), names->end());
  CHECK(listed.count("src"));
  CHECK(listed.count(".pi"));
  CHECK(listed.count(".env.example"));
  CHECK(listed.count("store-link"));  // a name only; following it is refused
  for (const char* hidden : {".ssh", ".env", ".env.local", ".npmrc", "pipe"}) {
    INFO(hidden);
    CHECK_FALSE(listed.count(hidden));
  }
  Result<VettedObject> pi = t.wall->Vet(t.project + "/.pi", ".pi", WallWant::kDirectory);
  REQUIRE(pi.ok());
  Result<std::vector<std::string>> pi_names = t.wall->List(*pi);
  REQUIRE(pi_names.ok());
  CHECK(*pi_names == std::vector<std::string>{"settings.json"});
  CHECK(t.wall->HiddenInWalk(*pi, "fusion/s-1/run/canonical-input.json"));
  CHECK(t.wall->HiddenInWalk(*top, "./.pi/fusion/s-1"));
  CHECK_FALSE(t.wall->HiddenInWalk(*top, "./src/a.txt"));
}

TEST_CASE("FileWall: what is read is what was vetted, whatever is swapped in meanwhile") {
  Tree t;
  const std::string race = t.project + "/race.txt";
  const std::string link = t.project + "/race.link";
  std::ofstream(race) << "inside";
  std::atomic<bool> stop{false};
  // Swaps race.txt between a regular file and a symlink to the outside file, as fast as it can.
  std::thread swapper([&] {
    while (!stop) {
      std::ofstream(t.project + "/race.tmp") << "inside";
      fs::rename(t.project + "/race.tmp", race);
      fs::remove(link);
      fs::create_symlink(t.root + "/outside.txt", link);
      fs::rename(link, race);
    }
  });
  int read_inside = 0, refused = 0, outside = 0;
  // Until both states were met many times (the swapper needs a moment to get going).
  for (int i = 0; i < 200000 && (read_inside < 200 || refused < 200); ++i) {
    Result<VettedObject> v = t.wall->Vet(race, "race.txt", WallWant::kFile);
    if (!v.ok()) {
      ++refused;
      continue;
    }
    // The tool opens a while after the check (in Pi, milliseconds): swaps happen in between.
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    Result<int> fd = FileWall::ReopenForReading(*v);
    if (!fd.ok()) continue;  // never with the vetted descriptor; counted below by its absence
    char buf[16] = {};
    const ssize_t n = ::read(*fd, buf, sizeof buf);
    ::close(*fd);
    const std::string got(buf, n > 0 ? static_cast<size_t>(n) : 0);
    if (got == "secret") ++outside;
    if (got == "inside") ++read_inside;
  }
  stop = true;
  swapper.join();
  INFO("inside " << read_inside << ", refused " << refused);
  CHECK(outside == 0);
  CHECK(read_inside > 0);
  CHECK(refused > 0);  // the race really ran both ways
}

}  // namespace
}  // namespace pi_fusion::child
