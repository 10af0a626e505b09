// The one walk of a project's run store (store/run_finder.h): which directories count as runs,
// and which runs a person's query names.
#include "store/run_finder.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "core/file_system.h"
#include "test_support.h"

namespace pi_fusion::store {
namespace {

constexpr char kA[] = "reason-0123456789abcdef0123456789abcdef";
constexpr char kB[] = "investigate-0123ffffffffffffffffffffffffffff";
constexpr char kC[] = "reason-fedcba9876543210fedcba9876543210";

std::vector<std::string> Ids(const std::vector<FoundRun>& runs) {
  std::vector<std::string> ids;
  for (const FoundRun& run : runs) ids.push_back(run.run_id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST_CASE("FindRuns: run-id directories of every session, nothing else", "[store][run_finder]") {
  testing::TempDir project;
  const std::string root = project.path() + "/.pi/fusion";
  CHECK(FindRuns(PosixFileSystem(), project.path()).empty());  // no run store yet
  for (const std::string& dir :
       {project.path() + "/.pi", root, root + "/s1-10", root + "/s2-20", root + "/s1-10/" + kA,
        root + "/s2-20/" + kB, root + "/s2-20/not-a-run-id"}) {
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  }
  std::ofstream(root + "/s1-10/" + kC) << "a file is not a run";
  std::ofstream(root + "/stray-file") << "a file is not a session";
  REQUIRE(::symlink((root + "/s1-10").c_str(), (root + "/planted-30").c_str()) == 0);
  const std::vector<FoundRun> runs = FindRuns(PosixFileSystem(), project.path());
  CHECK(Ids(runs) == std::vector<std::string>{kB, kA});  // the planted link is not a session
  for (const FoundRun& run : runs) {
    CHECK(run.dir.rfind(root + "/s", 0) == 0);
    CHECK(run.dir.ends_with("/" + run.run_id));
  }
}

TEST_CASE("RunsNamed: the id, a prefix or the short id; an exact id alone", "[store][run_finder]") {
  const std::vector<FoundRun> runs = {{kA, "/a"}, {kB, "/b"}, {kC, "/c"}};
  CHECK(Ids(RunsNamed(runs, kA)) == std::vector<std::string>{kA});
  CHECK(Ids(RunsNamed(runs, "reason-")) == std::vector<std::string>{kA, kC});
  CHECK(Ids(RunsNamed(runs, "0123")) == std::vector<std::string>{kB, kA});  // both hex parts
  CHECK(Ids(RunsNamed(runs, "fedcba98")) == std::vector<std::string>{kC});
  CHECK(RunsNamed(runs, "").empty());
  CHECK(RunsNamed(runs, "validate-").empty());
}

}  // namespace
}  // namespace pi_fusion::store
