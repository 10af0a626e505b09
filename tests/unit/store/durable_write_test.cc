// WriteFileDurably under injected faults: nothing partial under the final name, no temp file
// left behind, the errno text in the artifact_error. And a crash at every step leaves the target
// either untouched or complete.
#include <array>
#include <cerrno>
#include <filesystem>

#include <catch2/catch.hpp>

#include "core/durable_file.h"
#include "test_support.h"

using pi_fusion::kArtifactError;
using pi_fusion::WriteFileDurably;
using pi_fusion::store::testing::FaultFileSystem;
using pi_fusion::store::testing::FsOp;
using pi_fusion::store::testing::TempDir;

namespace {

std::vector<std::string> Names(const std::string& dir) {
  auto names = pi_fusion::PosixFileSystem().ListDir(dir);
  REQUIRE(names.ok());
  std::sort(names->begin(), names->end());
  return names.value();
}

}  // namespace

TEST_CASE("WriteFileDurably: each injected fault leaves no final file and no temp file",
          "[store][durable]") {
  struct Case {
    const char* what;
    FsOp op;
    int err;
    const char* errno_text;
  };
  const Case cases[] = {
      {"temp create fails", FsOp::kCreateExclusive, EACCES, "Permission denied (errno 13)"},
      {"ENOSPC on write", FsOp::kAppend, ENOSPC, "No space left on device (errno 28)"},
      {"EIO on fsync", FsOp::kSync, EIO, "Input/output error (errno 5)"},
      {"EIO on close", FsOp::kClose, EIO, "Input/output error (errno 5)"},
      {"rename fails", FsOp::kRename, EXDEV, "Invalid cross-device link (errno 18)"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    TempDir dir;
    FaultFileSystem fs;
    fs.FailOn(c.op, c.err);
    const pi_fusion::Status s = WriteFileDurably(fs, dir.path() + "/result.json", "{\"a\":1}");
    CHECK(s.code() == kArtifactError);
    CHECK(s.message().find(c.errno_text) != std::string::npos);
    CHECK(s.message().find("result.json") != std::string::npos);
    CHECK(Names(dir.path()).empty());
  }
}

TEST_CASE("WriteFileDurably: a fault while replacing keeps the previous content whole",
          "[store][durable]") {
  for (FsOp op : {FsOp::kAppend, FsOp::kSync, FsOp::kRename}) {
    INFO(pi_fusion::store::testing::FsOpName(op));
    TempDir dir;
    FaultFileSystem fs;
    const std::string path = dir.path() + "/manifest.json";
    REQUIRE(WriteFileDurably(fs, path, "old content").ok());
    fs.FailOn(op, ENOSPC);
    CHECK_FALSE(WriteFileDurably(fs, path, "new content that is longer").ok());
    CHECK(pi_fusion::store::testing::ReadAll(path) == "old content");
    CHECK(Names(dir.path()) == std::vector<std::string>{"manifest.json"});
  }
}

TEST_CASE("WriteFileDurably: a directory fsync failure is reported; the file is complete",
          "[store][durable]") {
  TempDir dir;
  FaultFileSystem fs;
  fs.FailOn(FsOp::kSyncDir, EIO);
  const std::string path = dir.path() + "/merged.md";
  const pi_fusion::Status s = WriteFileDurably(fs, path, "all of it");
  CHECK(s.code() == kArtifactError);
  CHECK(s.message().find("syncdir") != std::string::npos);
  // The rename already happened: never a prefix, and no temp file.
  CHECK(pi_fusion::store::testing::ReadAll(path) == "all of it");
  CHECK(Names(dir.path()) == std::vector<std::string>{"merged.md"});
}

TEST_CASE("WriteFileDurably: a crash at any step leaves the old or the new bytes, never a prefix",
          "[store][durable]") {
  // create, append, sync, close, rename, syncdir: a crash before each, and none.
  for (int budget = 0; budget <= 6; ++budget) {
    INFO("crash after " << budget << " mutating calls");
    TempDir dir;
    FaultFileSystem fs;
    const std::string path = dir.path() + "/manifest.json";
    REQUIRE(WriteFileDurably(fs, path, "old").ok());
    fs.CrashAfter(budget);
    const pi_fusion::Status s = WriteFileDurably(fs, path, "new and complete");
    const std::string now = pi_fusion::store::testing::ReadAll(path);
    CHECK((now == "old" || now == "new and complete"));
    CHECK(s.ok() == (budget == 6));
    if (budget < 5) CHECK(now == "old");  // the rename is the commit point
    if (budget >= 5) CHECK(now == "new and complete");
    // A dead process cannot clean up: at most its temp file remains, under a temp name.
    for (const auto& name : Names(dir.path())) {
      if (name != "manifest.json") CHECK(pi_fusion::IsDurableTempName(name));
    }
  }
}

TEST_CASE("WriteFileDurably: files are 0600 and the temp file is exclusive", "[store][durable]") {
  TempDir dir;
  FaultFileSystem fs;
  const std::string path = dir.path() + "/a.json";
  REQUIRE(WriteFileDurably(fs, path, "x").ok());
  CHECK(pi_fusion::store::testing::ModeOf(path) == 0600);
  CHECK(fs.log() == std::vector<std::string>{
                        "create:.a.json.tmp-0", "append:.a.json.tmp-0", "sync:.a.json.tmp-0",
                        "close:.a.json.tmp-0", "rename:a.json",
                        "syncdir:" + std::filesystem::path(dir.path()).filename().string()});
}

TEST_CASE("WriteFilesDurably: every file synced under its temp name, renamed, then one dir fsync",
          "[store][durable]") {
  TempDir dir;
  FaultFileSystem fs;
  const std::string a = dir.path() + "/a.json";
  const std::string b = dir.path() + "/b.json";
  const std::array<pi_fusion::DurableFile, 2> files = {pi_fusion::DurableFile{a, "{\"a\":1}"},
                                                       pi_fusion::DurableFile{b, "{\"b\":2}"}};
  REQUIRE(pi_fusion::WriteFilesDurably(fs, files).ok());
  std::vector<std::string> order;
  for (const std::string& entry : fs.log()) {
    if (entry.rfind("create:", 0) != 0 && entry.rfind("append:", 0) != 0) order.push_back(entry);
  }
  CHECK(order == std::vector<std::string>{
                     "sync:.a.json.tmp-0", "close:.a.json.tmp-0", "sync:.b.json.tmp-0",
                     "close:.b.json.tmp-0", "rename:a.json", "rename:b.json",
                     "syncdir:" + std::filesystem::path(dir.path()).filename().string()});
  CHECK(Names(dir.path()) == std::vector<std::string>{"a.json", "b.json"});
}

TEST_CASE("WriteFilesDurably: a fault before the renames leaves no file of the batch",
          "[store][durable]") {
  for (FsOp op : {FsOp::kAppend, FsOp::kSync, FsOp::kRename}) {
    INFO(pi_fusion::store::testing::FsOpName(op));
    TempDir dir;
    FaultFileSystem fs;
    fs.FailOn(op, EIO, "b.json");
    const std::array<pi_fusion::DurableFile, 2> files = {
        pi_fusion::DurableFile{dir.path() + "/a.json", "a"},
        pi_fusion::DurableFile{dir.path() + "/b.json", "b"}};
    const pi_fusion::Status s = pi_fusion::WriteFilesDurably(fs, files);
    CHECK(s.code() == kArtifactError);
    CHECK(s.message().find("b.json") != std::string::npos);
    // A rename fault comes after a.json is in place; a.json is then whole, b.json absent.
    const std::vector<std::string> left = Names(dir.path());
    if (op == FsOp::kRename) {
      CHECK(left == std::vector<std::string>{"a.json"});
    } else {
      CHECK(left.empty());
    }
  }
}
