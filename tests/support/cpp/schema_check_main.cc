// schema-check: checks real run artifacts against their schema in schemas/artifacts/ with the
// same checker the unit tests use, so the end-to-end tests can hold what a real run wrote (not
// only what a unit test built) to the published shape.
//
//   schema-check <schema file in schemas/artifacts/> <artifact> [--jsonl]
//
// --jsonl checks every line of the file as one document (a tool-call journal). Prints each
// violation as "<artifact>[:<line>]: <json pointer>: <problem>" and exits 1 when there is one,
// 2 on a usage, read or parse error, 0 when everything conforms.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "json_schema_check.h"

namespace {

int CheckDocument(const nlohmann::json& schema, const std::string& text, const std::string& where) {
  const nlohmann::json value = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) {
    std::cerr << where << ": not JSON\n";
    return 2;
  }
  const auto violations = pi_fusion::testing::CheckAgainstSchema(schema, value);
  for (const std::string& v : violations) std::cout << where << ": " << v << "\n";
  return violations.empty() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const bool jsonl = argc == 4 && std::string(argv[3]) == "--jsonl";
  if (argc != 3 && !jsonl) {
    std::cerr << "usage: schema-check <schema file> <artifact> [--jsonl]\n";
    return 2;
  }
  try {
    const nlohmann::json schema = pi_fusion::testing::LoadArtifactSchema(argv[1]);
    std::ifstream in(argv[2], std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << argv[2] << "\n";
      return 2;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (!jsonl) return CheckDocument(schema, bytes.str(), argv[2]);
    int worst = 0, line_no = 0;
    std::istringstream lines(bytes.str());
    for (std::string line; std::getline(lines, line);) {
      const int result =
          CheckDocument(schema, line, std::string(argv[2]) + ":" + std::to_string(++line_no));
      worst = std::max(worst, result);
    }
    return worst;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 2;
  }
}
