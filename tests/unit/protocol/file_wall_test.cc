// The FileWall on real trees: protected places, special files, and what is opened being what was
// vetted (a symlink swapped in after the name looked fine).
#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/mount.h>
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
    auto wall_or = FileWall::Open(project, WallPlaces{.agent_dir = project + "/home/.pi/agent"});
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

// ProtectedReason with the agent directory at "agentdir" and no added rows.
std::optional<Protection> Reason(std::string_view relative) {
  return ProtectedReason(relative, {{"agentdir", "Pi's agent directory"}}, {});
}

TEST_CASE("ProtectedReason: the run store, Pi's data and the credential set") {
  for (const char* p : {".pi/fusion", ".pi/fusion/x/y", "a/.pi/fusion/b", ".ssh", "x/.ssh/id",
                        ".gnupg/k", ".aws/credentials", ".azure/a", ".config/gcloud/x", ".kube/c",
                        ".docker/config.json", ".netrc", ".npmrc", ".pypirc", ".git-credentials",
                        ".env", "sub/.env.local", ".pi/agent/auth.json", "agentdir/models.json"}) {
    INFO(p);
    CHECK(Reason(p));
  }
  for (const char* p : {"", ".pi", ".pi/settings.json", ".env.example", ".env.local.sample",
                        ".env.template", ".config", ".config/other", ".docker/other.json", "fusion",
                        "src/env", "environment.ts", "agentdirx"}) {
    INFO(p);
    CHECK_FALSE(Reason(p));
  }
  CHECK(std::string(Reason(".pi/fusion/r")->code) == kPathInRunStore);
  CHECK(std::string(Reason(".ssh")->code) == kPathProtected);
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

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

TEST_CASE("FileWall::Vet: protected names match however the lookup spelled them") {
  Tree t;
  // On a case-sensitive file system these are other files; on a case-folding one the same.
  for (const char* name : {".ENV", ".Env.Local", ".\u017F\u017Fh", ".\u212Aube", ".Git-Credentials",
                           "prod.env", ".env-prod", ".envrc"}) {
    std::ofstream(t.project + "/" + name) << "secret";
    INFO(name);
    CHECK(t.Code(name) == kPathProtected);
  }
  fs::create_directories(t.project + "/.PI/FUSION");
  std::ofstream(t.project + "/.PI/FUSION/answer.md") << "sibling";
  CHECK(t.Code(".PI/FUSION/answer.md") == kPathInRunStore);
}

TEST_CASE("FileWall: a private key is refused wherever it is, by its first bytes") {
  Tree t;
  fs::create_directories(t.project + "/config");
  std::ofstream(t.project + "/config/deploy") << "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n";
  std::ofstream(t.project + "/config/deploy.pub") << "ssh-ed25519 AAAA me@host\n";
  CHECK(t.Code("config/deploy") == kPathProtected);
  CHECK(t.Code("config/deploy.pub") == "ok");
  Result<VettedObject> top = t.wall->Vet(t.project + "/config", "config", WallWant::kDirectory);
  REQUIRE(top.ok());
  // Listings show the name; grep's content check leaves the file out.
  CHECK_FALSE(t.wall->HiddenInWalk(*top, "deploy"));
  CHECK(t.wall->HiddenInWalk(*top, "deploy", FileWall::WalkCheck::kContent));
  CHECK_FALSE(t.wall->HiddenInWalk(*top, "deploy.pub", FileWall::WalkCheck::kContent));
  // A file that becomes a key after it was vetted is refused where it is reopened.
  Result<VettedObject> pub = t.wall->Vet(t.project + "/config/deploy.pub", "p", WallWant::kFile);
  REQUIRE(pub.ok());
  std::ofstream(t.project + "/config/deploy.pub") << "-----BEGIN RSA PRIVATE KEY-----\n";
  Result<int> fd = FileWall::ReopenForReading(*pub);
  REQUIRE_FALSE(fd.ok());
  CHECK(fd.status().code() == kPathProtected);
}

TEST_CASE("FileWall: hard links are refused unless provably not a protected file's other name") {
  Tree t;
  fs::create_directories(t.project + "/docs");
  fs::create_directories(t.project + "/.git/objects/ab");
  // A hard link to .env under an innocent name, in another directory.
  fs::create_hard_link(t.project + "/.env", t.project + "/docs/notes.txt");
  CHECK(t.Code("docs/notes.txt") == kPathProtected);
  // Two names in one directory, neither protected: provably harmless.
  std::ofstream(t.project + "/src/b.txt") << "plain";
  fs::create_hard_link(t.project + "/src/b.txt", t.project + "/src/c.txt");
  CHECK(t.Code("src/c.txt") == "ok");
  // Two names in one directory, one of them protected.
  std::ofstream(t.project + "/docs/.env.prod") << "SECRET=1";
  fs::create_hard_link(t.project + "/docs/.env.prod", t.project + "/docs/prod.txt");
  CHECK(t.Code("docs/prod.txt") == kPathProtected);
  // git links objects on a local clone: a zlib stream there is read.
  std::ofstream(t.project + "/.git/objects/ab/cd") << std::string("\x78\x01\x2b\x29", 4);
  fs::create_hard_link(t.project + "/.git/objects/ab/cd", t.root + "/clone-cd");
  CHECK(t.Code(".git/objects/ab/cd") == "ok");
  // … but not a secret linked in under .git/objects.
  fs::create_hard_link(t.project + "/.env", t.project + "/.git/objects/ab/ef");
  CHECK(t.Code(".git/objects/ab/ef") == kPathProtected);
  Result<VettedObject> docs = t.wall->Vet(t.project + "/docs", "docs", WallWant::kDirectory);
  REQUIRE(docs.ok());
  CHECK(t.wall->HiddenInWalk(*docs, "notes.txt"));
}

TEST_CASE("FileWall: .git/config is read with every URL's userinfo redacted") {
  Tree t;
  fs::create_directories(t.project + "/.git");
  std::ofstream(t.project + "/.git/config")
      << "[remote \"origin\"]\n\turl = https://user:ghp_TOKEN@github.com/o/r.git\n"
         "\tfetch = +refs/heads/*:refs/remotes/origin/*\n";
  Result<VettedObject> v = t.wall->Vet(t.project + "/.git/config", "c", WallWant::kFile);
  REQUIRE(v.ok());
  CHECK(v->redacted());
  Result<int> fd = FileWall::ReopenForReading(*v);
  REQUIRE(fd.ok());
  const std::string text = ReadAll(*fd);
  CHECK(text.find("ghp_TOKEN") == std::string::npos);
  CHECK(text.find("url = https://***@github.com/o/r.git") != std::string::npos);
  CHECK(text.find("fetch = +refs/heads/*") != std::string::npos);
  Result<VettedObject> plain = t.wall->Vet(t.project + "/src/a.txt", "a", WallWant::kFile);
  REQUIRE(plain.ok());
  CHECK_FALSE(plain->redacted());
}

TEST_CASE("FileWall: protected places are known by identity, whatever name reaches them") {
  // A bind mount of the home's .ssh inside the project, in a private mount namespace of this
  // test process (CI and developers' machines run the tests as root).
  REQUIRE(::geteuid() == 0);
  REQUIRE(::unshare(CLONE_NEWNS) == 0);
  REQUIRE(::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0);
  Tree t;
  const std::string home = t.root + "/home";
  fs::create_directories(home + "/.ssh");
  std::ofstream(home + "/.ssh/id_ed25519") << "key";
  fs::create_directories(t.project + "/keys");
  fs::create_directories(t.root + "/sessions");
  std::ofstream(t.root + "/sessions/s.jsonl") << "conversation";
  fs::create_directories(t.project + "/history");
  REQUIRE(::mount((home + "/.ssh").c_str(), (t.project + "/keys").c_str(), nullptr, MS_BIND,
                  nullptr) == 0);
  REQUIRE(::mount((t.root + "/sessions").c_str(), (t.project + "/history").c_str(), nullptr,
                  MS_BIND, nullptr) == 0);
  std::ofstream(t.project + "/keys/notes.txt") << "plain";
  auto wall = FileWall::Open(t.project, WallPlaces{.agent_dir = t.root + "/agent",
                                                   .session_dirs = {t.root + "/sessions"},
                                                   .home = home});
  REQUIRE(wall.ok());
  auto code = [&](const std::string& rel) {
    Result<VettedObject> v = (*wall)->Vet(t.project + "/" + rel, rel, WallWant::kAny);
    return v.ok() ? std::string("ok") : v.status().code();
  };
  CHECK(code("keys") == kPathProtected);
  CHECK(code("keys/notes.txt") == kPathProtected);
  CHECK(code("history/s.jsonl") == kPathProtected);
  CHECK(code("src/a.txt") == "ok");
  Result<VettedObject> top = (*wall)->Vet(t.project, ".", WallWant::kDirectory);
  REQUIRE(top.ok());
  CHECK((*wall)->HiddenInWalk(*top, "keys/notes.txt"));
  CHECK((*wall)->HiddenInWalk(*top, "history"));
  ::umount((t.project + "/keys").c_str());
  ::umount((t.project + "/history").c_str());
}

TEST_CASE("FileWall: a session directory inside the project is protected by its path") {
  Tree t;
  fs::create_directories(t.project + "/.pi/sessions");
  std::ofstream(t.project + "/.pi/sessions/s.jsonl") << "conversation";
  auto wall = FileWall::Open(t.project, WallPlaces{.session_dirs = {t.project + "/.pi/sessions"}});
  REQUIRE(wall.ok());
  Result<VettedObject> v = (*wall)->Vet(t.project + "/.pi/sessions/s.jsonl", "s", WallWant::kAny);
  REQUIRE_FALSE(v.ok());
  CHECK(v.status().code() == kPathProtected);
  Result<VettedObject> folded =
      (*wall)->Vet(t.project + "/.PI/Sessions/s.jsonl", "s", WallWant::kAny);
  REQUIRE_FALSE(folded.ok());  // not there on this file system, but never found by name either
}

}  // namespace
}  // namespace pi_fusion::child
