// Pi's models.json as route admission reads it (config/pi_models_json.h): through the FileSystem
// seam, a final symlink followed, nothing unread vouched for.
#include "config/pi_models_json.h"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/provider_overrides.h"

namespace pi_fusion::config {
namespace {

using Strings = std::vector<std::string>;

// Answers ReadFileFollowingLink from memory (or with `status`), recording the paths asked.
class ScriptedFs : public FileSystemWrapper {
 public:
  ScriptedFs() : FileSystemWrapper(PosixFileSystem()) {}
  Result<std::string> ReadFileFollowingLink(const std::string& path, uint64_t max_bytes) override {
    asked.push_back(path);
    caps.push_back(max_bytes);
    if (!status.ok()) return status;
    return text;
  }
  std::string text;
  Status status;
  Strings asked;
  std::vector<uint64_t> caps;
};

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/pi-fusion-models-json-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST_CASE("PiModelsJson: read through the seam from <agent dir>/models.json") {
  ScriptedFs fs;
  fs.text = R"({"providers": {"openai": {"headers": {"X-Org": "acme"}}}})";
  const nlohmann::json doc = ReadPiModelsJson(fs, "/home/u/.pi/agent");
  CHECK(fs.asked == Strings{"/home/u/.pi/agent/models.json"});
  CHECK(fs.caps == std::vector<uint64_t>{kPiModelsJsonMaxBytes});
  CHECK(FindConfigOverrides(doc, "openai", "gpt-5.5").locations ==
        Strings{"providers.openai.headers"});
}

TEST_CASE(
    "PiModelsJson: no file or an unreadable one is empty; an oversized one vouches for "
    "nothing") {
  ScriptedFs fs;
  for (const char* code : {kFsNotFound, kFsNotRegular, kFsIoError}) {
    INFO(code);
    fs.status = Status::Error(code, "read models.json: refused");
    CHECK(ReadPiModelsJson(fs, "/a") == nlohmann::json::object());
  }
  fs.status = Status::Error(kFsTooLarge, "read models.json: too large");
  const nlohmann::json oversized = ReadPiModelsJson(fs, "/a");
  CHECK(oversized.is_discarded());
  CHECK(FindConfigOverrides(oversized, "openai", "gpt-5.5").locations ==
        Strings{"models.json (does not parse)"});
}

TEST_CASE("PiModelsJson: a linked models.json is followed, a FIFO is not waited on") {
  TempDir home;
  const std::string agent = home.path() + "/agent";
  REQUIRE(::mkdir(agent.c_str(), 0700) == 0);
  std::ofstream(home.path() + "/dotfiles-models.json")
      << R"({"providers": {"anthropic": {"authHeader": true}}})";
  REQUIRE(::symlink((home.path() + "/dotfiles-models.json").c_str(),
                    (agent + "/models.json").c_str()) == 0);
  CHECK(
      FindConfigOverrides(ReadPiModelsJson(PosixFileSystem(), agent), "anthropic", "m").locations ==
      Strings{"providers.anthropic.authHeader"});

  REQUIRE(::unlink((agent + "/models.json").c_str()) == 0);
  REQUIRE(::mkfifo((agent + "/models.json").c_str(), 0600) == 0);
  CHECK(ReadPiModelsJson(PosixFileSystem(), agent) == nlohmann::json::object());
}

}  // namespace
}  // namespace pi_fusion::config
