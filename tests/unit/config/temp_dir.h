// A fresh directory from mkdtemp(3) under the temp directory, removed with everything in it.
// Shared by the config tests, which run against the real POSIX file system. Test-only.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace pi_fusion::config {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "config_test.XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace pi_fusion::config
