// The ripgrep and fd command lines of the candidates' grep and find, and the reading of their
// output.
#include <catch2/catch.hpp>

#include <algorithm>

#include "child/core/walk_tools.h"

namespace pi_fusion::child {
namespace {

bool Has(const std::vector<std::string>& args, const std::string& a, const std::string& b) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == a && args[i + 1] == b) return true;
  }
  return false;
}

TEST_CASE("RipgrepArgs: Pi's flags, the model's options, the protected places excluded") {
  GrepRequest r;
  r.pattern = "-needle";
  r.glob = "!./src/*.ts";
  r.ignore_case = true;
  r.context = 2;
  std::vector<std::string> args = RipgrepArgs(r, ".");
  CHECK(std::vector<std::string>(args.begin(), args.begin() + 5) ==
        std::vector<std::string>{"--no-config", "--json", "--line-number", "--color=never",
                                 "--hidden"});
  CHECK(Has(args, "--glob", "!src/*.ts"));
  CHECK(Has(args, "--context", "2"));
  CHECK(Has(args, "--glob", "!**/.pi/fusion"));
  CHECK(Has(args, "--glob", "!**/.ssh"));
  CHECK(std::count(args.begin(), args.end(), "--ignore-case") == 1);
  CHECK(std::count(args.begin(), args.end(), "--fixed-strings") == 0);
  // The pattern comes after "--", so a leading dash is never a flag.
  REQUIRE(args.size() >= 3);
  CHECK(std::vector<std::string>(args.end() - 3, args.end()) ==
        std::vector<std::string>{"--", "-needle", "."});
}

TEST_CASE("ParseRipgrepJson: matches and context, text and bytes, a cut last line skipped") {
  const std::string out =
      R"({"type":"begin","data":{"path":{"text":"./a.txt"}}})"
      "\n"
      R"({"type":"match","data":{"path":{"text":"./a.txt"},"lines":{"text":"hit\n"},"line_number":3}})"
      "\n"
      R"({"type":"context","data":{"path":{"bytes":"Yi50eHQ="},"lines":{"bytes":"/w=="},"line_number":4}})"
      "\n"
      "not json\n"
      R"({"type":"match","data":{"path":{"text":"./c.txt"},"lines":{"text":"cut)";
  std::vector<RipgrepLine> lines = ParseRipgrepJson(out);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].path == "./a.txt");
  CHECK(lines[0].line_number == 3);
  CHECK(lines[0].text == "hit\n");
  CHECK(lines[0].match);
  CHECK(lines[1].path == "b.txt");
  CHECK(lines[1].text == "\xff");
  CHECK_FALSE(lines[1].match);
}

TEST_CASE("FdArgs: Pi's globbing, anchored at the searched directory") {
  std::vector<std::string> name = FdArgs("*.ts", "/p/q");
  CHECK(std::count(name.begin(), name.end(), "--no-require-git") == 0);
  CHECK(std::count(name.begin(), name.end(), "--full-path") == 0);
  CHECK(name.back() == "*.ts");
  CHECK(Has(name, "--exclude", "**/.pi/fusion"));
  std::vector<std::string> path = FdArgs("./src/*.ts", "/p/[q]");
  CHECK(std::count(path.begin(), path.end(), "--full-path") == 1);
  CHECK(std::count(path.begin(), path.end(), "--ignore-case") == 1);
  CHECK(path.back() == "/p/\\[q\\]/src/*.ts");
  CHECK(FdArgs("Src/*.ts", "/p").back() == "/p/Src/*.ts");
  CHECK(FdArgs("/abs/*.ts", "/p").back() == "/abs/*.ts");
}

TEST_CASE("FdLines: one path a line, without ./ or CR; a cut last line skipped") {
  CHECK(FdLines("./a\nb/c\r\n\nd/\ncut") == std::vector<std::string>{"a", "b/c", "d/"});
}

TEST_CASE("FindExecutable: Pi's own bin first, then PATH, never a relative directory") {
  CHECK(FindExecutable({"sh"}, "/nonexistent", "relative:/bin") == "/bin/sh");
  CHECK(FindExecutable({"no-such-tool-x"}, "/nonexistent", "/bin:/usr/bin").empty());
  CHECK(FindExecutable({"sh"}, "/nonexistent", "relative").empty());
}

}  // namespace
}  // namespace pi_fusion::child
