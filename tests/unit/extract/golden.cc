#include "golden.h"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace pi_fusion::extract::testing {
namespace {

bool Updating() {
  const char* v = std::getenv("PI_FUSION_UPDATE_GOLDENS");
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

}  // namespace

std::string GoldenDir() { return PI_FUSION_SOURCE_DIR "/tests/unit/extract/golden/"; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream data;
  data << in.rdbuf();
  return data.str();
}

bool FileExists(const std::string& path) { return std::ifstream(path).good(); }

void CheckGolden(const std::string& file, const std::string& actual) {
  const std::string path = GoldenDir() + file;
  const std::string expected_text = actual + "\n";
  if (Updating()) {
    std::ofstream(path, std::ios::binary) << expected_text;
    return;
  }
  INFO("golden file " << path << " (regenerate with PI_FUSION_UPDATE_GOLDENS=1 and review)");
  REQUIRE(FileExists(path));
  CHECK(ReadFile(path) == expected_text);
}

}  // namespace pi_fusion::extract::testing
