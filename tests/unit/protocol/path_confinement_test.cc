// Confinement of the file tools to the project directory, on a real tree with real symlinks.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "child/core/file_wall.h"
#include "child/core/path_confinement.h"
#include "test_streams.h"

namespace pi_fusion::child {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// <tmp>/project/{a.txt, sub/b.txt, out -> ../outside.txt, outdir -> .., in -> a.txt},
// <tmp>/outside.txt
struct Tree {
  Tree() {
    std::string pattern = (fs::temp_directory_path() / "confine-XXXXXX").string();
    root = ::mkdtemp(pattern.data());
    project = root + "/project";
    fs::create_directories(project + "/sub");
    std::ofstream(project + "/a.txt") << "a";
    std::ofstream(project + "/sub/b.txt") << "b";
    std::ofstream(root + "/outside.txt") << "secret";
    fs::create_symlink("../outside.txt", project + "/out");
    fs::create_symlink("..", project + "/outdir");
    fs::create_symlink("a.txt", project + "/in");
    env.home = root;
  }
  ~Tree() { fs::remove_all(root); }

  // The refusal's text, or nullopt when the call may run.
  std::optional<std::string> Check(const std::string& tool, json input) {
    std::optional<Status> refusal = Code(tool, std::move(input));
    if (!refusal) return std::nullopt;
    return refusal->message();
  }
  std::optional<Status> Code(const std::string& tool, json input) {
    return RefuseToolPath(env, WallPlaces{.agent_dir = root + "/agent"}, project, tool, input);
  }

  std::string root, project;
  testing::MemoryChildEnv env;
};

TEST_CASE("RefuseOutsideProject: paths inside the project run") {
  Tree t;
  CHECK_FALSE(t.Check("read", {{"path", "a.txt"}}));
  CHECK_FALSE(t.Check("read", {{"path", "sub/../a.txt"}}));
  CHECK_FALSE(t.Check("read", {{"path", t.project + "/sub/b.txt"}}));
  CHECK_FALSE(t.Check("read", {{"path", "@a.txt"}}));
  CHECK_FALSE(t.Check("read", {{"path", "in"}}));  // a symlink that stays inside
  CHECK_FALSE(t.Check("ls", json::object()));
  CHECK_FALSE(t.Check("grep", {{"pattern", "x"}, {"path", "sub"}}));
  CHECK_FALSE(t.Check("find", {{"pattern", "*.txt"}, {"path", "."}}));
  CHECK_FALSE(t.Check("ls", {{"path", nullptr}}));
  CHECK_FALSE(t.Check("fusion_web_fetch", {{"url", "https://example.com/"}}));  // no path
}

TEST_CASE("RefuseOutsideProject: '..', absolute paths, symlinks out, home and URLs are refused") {
  Tree t;
  for (const std::string& path :
       {std::string("../outside.txt"), t.root + "/outside.txt", std::string("out"),
        std::string("outdir/outside.txt"), std::string("outdir"),
        std::string("sub/../../outside.txt"), std::string("~/outside.txt"), std::string("~"),
        std::string("/etc/passwd"), "file://" + t.root + "/outside.txt",
        std::string("@../outside.txt")}) {
    INFO(path);
    std::optional<std::string> refusal = t.Check("read", {{"path", path}});
    REQUIRE(refusal);
    CHECK_THAT(*refusal, Catch::Contains("outside the project directory") ||
                             Catch::Contains("is not a plain file path"));
  }
  CHECK(t.Check("ls", {{"path", ".."}}));
  CHECK(t.Check("grep", {{"pattern", "secret"}, {"path", "out"}}));
  CHECK(t.Check("find", {{"pattern", "*"}, {"path", t.root}}));
  // Missing paths are refused too: Pi's read would try look-alike names we cannot vet.
  CHECK_THAT(*t.Check("read", {{"path", "missing.txt"}}),
             Catch::EndsWith("does not exist in the project directory."));
  CHECK(t.Code("read", {{"path", "missing.txt"}})->code() == kPathNotFound);
  CHECK(t.Code("read", {{"path", "out"}})->code() == kPathOutsideProject);
  CHECK(t.Check("read", json::object()));
  CHECK(t.Check("read", {{"path", 7}}));
}

TEST_CASE("ResolveLikePi: follows Pi's resolveToCwd") {
  CHECK(ResolveLikePi("a/./b/../c", "/p", "/h") == "/p/a/c");
  CHECK(ResolveLikePi("../../../..", "/p/q", "/h") == "/");
  CHECK(ResolveLikePi("//x//y/", "/p", "/h") == "/x/y");
  CHECK(ResolveLikePi("~", "/p", "/h") == "/h");
  CHECK(ResolveLikePi("~/d", "/p", "/h") == "/h/d");
  CHECK(ResolveLikePi("~d", "/p", "/h") == "/p/~d");
  CHECK(ResolveLikePi("@x", "/p", "/h") == "/p/x");
  CHECK(ResolveLikePi("a\u00a0b\u3000c", "/p", "/h") == "/p/a b c");  // Unicode spaces
  CHECK(ResolveLikePi("", "/p", "/h") == "/p");
  CHECK_FALSE(ResolveLikePi("file:///etc/passwd", "/p", "/h"));
  CHECK_FALSE(ResolveLikePi(std::string_view("a\0b", 3), "/p", "/h"));
}

}  // namespace
}  // namespace pi_fusion::child
