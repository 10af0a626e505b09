// core/env_vars.h is the one list of PI_FUSION_* variables: the C++ names them only through it,
// the TypeScript extensions read only names it lists, and docs/protocol.md's table says what it
// says.
#include "core/env_vars.h"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "json_schema_check.h"

namespace pi_fusion::env_vars {
namespace {

using testing::ListSourceFiles;
using testing::ReadSourceFile;

std::set<std::string> TableNames() {
  std::set<std::string> names;
  for (const Variable& variable : kVariables) names.emplace(variable.name);
  return names;
}

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return "";
  return text.substr(begin, text.find_last_not_of(' ') - begin + 1);
}

std::string WithoutBackticks(std::string text) {
  std::erase(text, '`');
  return text;
}

std::vector<std::string> Cells(const std::string& row) {
  std::vector<std::string> cells;
  std::stringstream in(row);
  for (std::string cell; std::getline(in, cell, '|');) cells.push_back(Trim(cell));
  return cells;  // cells[0] is the empty text before the first '|'
}

using DocRow = std::tuple<std::string, std::string, std::string>;  // set by, read by, scope

// docs/protocol.md, "## Environment": the rows of the table whose header starts
// "| variable | set by | read by | scope |", by variable name (a row may name several).
std::map<std::string, DocRow> DocumentedVariables() {
  const std::string doc = ReadSourceFile("docs/protocol.md");
  const size_t section = doc.find("\n## Environment\n");
  REQUIRE(section != std::string::npos);
  const size_t header = doc.find("| variable | set by | read by | scope |", section);
  REQUIRE(header != std::string::npos);
  std::map<std::string, DocRow> rows;
  std::stringstream lines(doc.substr(header));
  std::string line;
  std::getline(lines, line);  // the header
  std::getline(lines, line);  // | --- | ...
  while (std::getline(lines, line) && line.rfind("|", 0) == 0) {
    const std::vector<std::string> cells = Cells(line);
    REQUIRE(cells.size() >= 6);
    std::stringstream names(WithoutBackticks(cells[1]));
    for (std::string name; std::getline(names, name, ',');) {
      rows[Trim(name)] = {cells[2], WithoutBackticks(cells[3]), cells[4]};
    }
  }
  return rows;
}

TEST_CASE("EnvVars: every name is unique and starts with the prefix") {
  CHECK(TableNames().size() == kVariables.size());
  for (const Variable& variable : kVariables) {
    INFO(variable.name);
    CHECK(variable.name.rfind(kPrefix, 0) == 0);
    // The parent sets exactly the per-child ones.
    CHECK((variable.set_by == Setter::kParent) == (variable.scope == Scope::kPerChild));
    CHECK(IsPerChild(variable.name) == (variable.scope == Scope::kPerChild));
  }
  CHECK_FALSE(IsPerChild("PI_FUSION_UNKNOWN"));
}

TEST_CASE("EnvVars: no C++ source but the header spells a PI_FUSION_ name") {
  std::vector<std::string> files;
  for (const char* dir : {"src", "child", "include"}) {
    for (const char* suffix : {".h", ".cc"}) {
      for (std::string& file : ListSourceFiles(dir, suffix)) files.push_back(std::move(file));
    }
  }
  REQUIRE(files.size() > 100);
  for (const std::string& file : files) {
    if (file == "src/core/env_vars.h") continue;
    INFO(file);
    CHECK(ReadSourceFile(file).find("\"PI_FUSION_") == std::string::npos);
  }
}

TEST_CASE("EnvVars: the TypeScript extensions read only names of the table") {
  const std::set<std::string> names = TableNames();
  const std::regex name("PI_FUSION_[A-Z0-9_]+");
  int seen = 0;
  for (const std::string& file : ListSourceFiles("extensions", ".ts")) {
    const std::string text = ReadSourceFile(file);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), name);
         it != std::sregex_iterator(); ++it) {
      INFO(file << ": " << it->str());
      CHECK(names.count(it->str()) == 1);
      ++seen;
    }
  }
  CHECK(seen >= 3);  // PI_FUSION_ADDON, PI_FUSION_CHILD_ADDON, PI_FUSION_PROVIDER_API
}

TEST_CASE("EnvVars: docs/protocol.md's table lists every variable as the header does") {
  const std::map<std::string, DocRow> documented = DocumentedVariables();
  std::set<std::string> documented_names;
  for (const auto& [documented_name, row] : documented) documented_names.insert(documented_name);
  CHECK(documented_names == TableNames());
  for (const Variable& variable : kVariables) {
    INFO(variable.name);
    const auto it = documented.find(std::string(variable.name));
    if (it == documented.end()) continue;
    CHECK(std::get<0>(it->second) == SetterName(variable.set_by));
    CHECK(std::get<1>(it->second) == ReaderName(variable.read_by));
    CHECK(std::get<2>(it->second) == ScopeName(variable.scope));
  }
}

}  // namespace
}  // namespace pi_fusion::env_vars
