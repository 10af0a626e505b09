// The citation extractor and the pure verdict on a cited file's bytes (workflow/citation_refs.h).
#include <catch2/catch.hpp>

#include "workflow/citation_refs.h"

namespace pi_fusion::workflow {
namespace {

std::vector<std::string> Refs(std::string_view text) {
  std::vector<std::string> out;
  for (const CitationRef& ref : ExtractCitations(text)) out.push_back(ref.Ref());
  return out;
}

using Strings = std::vector<std::string>;

TEST_CASE("ExtractCitations: plain, backticked, ranged and linked references") {
  CHECK(Refs("see src/lexer.c:900 for it") == Strings{"src/lexer.c:900"});
  CHECK(Refs("see `src/lexer.c:12` and `src/parser.c:3-9`.") ==
        Strings{"src/lexer.c:12", "src/parser.c:3-9"});
  CHECK(Refs("[the loop](src/main.cc:40) and [src/a.h:2](src/a.h:2)") ==
        Strings{"src/main.cc:40", "src/a.h:2"});
  CHECK(Refs("a column: lib/x.rs:7:15, a dot path ./run.py:1, a dir-less README.md:3") ==
        Strings{"lib/x.rs:7", "./run.py:1", "README.md:3"});
  CHECK(Refs("(src/a.c:1), \"src/b.c:2\"; src/c.c:3.") ==
        Strings{"src/a.c:1", "src/b.c:2", "src/c.c:3"});
}

TEST_CASE("ExtractCitations: URLs with ports, times and versions are not references") {
  CHECK(Refs("http://x:80 https://example.com:443/a http://127.0.0.1:8080/") == Strings{});
  CHECK(Refs("at 12:30 or 12:30:45, version 1.2:3") == Strings{});
  CHECK(Refs("Makefile:3 and key:1 and a.c:12px") == Strings{});
  CHECK(Refs("src/a.c:0 and src/a.c:9-3") == Strings{});  // no line 0, no reversed range
  CHECK(Refs("https://github.com/o/r/blob/main/src/a.c:12") == Strings{});
}

TEST_CASE("ExtractCitations: inline code on the same line is the nearest reference's quote") {
  const std::vector<CitationRef> refs = ExtractCitations(
      "`src/a.c:3` holds `int x = 1;`, and src/b.c:4 has `return 0`\n"
      "`orphan quote` on a line without a reference");
  REQUIRE(refs.size() == 2);
  CHECK(refs[0].quotes == Strings{"int x = 1;"});
  CHECK(refs[1].quotes == Strings{"return 0"});
  // A quote before any reference belongs to the first one after it.
  const std::vector<CitationRef> before = ExtractCitations("`x = 2` is in src/a.c:5");
  REQUIRE(before.size() == 1);
  CHECK(before[0].quotes == Strings{"x = 2"});
}

TEST_CASE("ExtractCitations: the same citation is listed once") {
  CHECK(Refs("src/a.c:1 and again `src/a.c:1`\n[src/a.c:1](src/a.c:1)") == Strings{"src/a.c:1"});
}

TEST_CASE("JudgeCitation: past the end, quotes, and a cut read") {
  const std::string file = "one\ntwo  words\nthree\n";
  CHECK(LineCount(file) == 3);
  CHECK(LineCount("no newline") == 1);
  CHECK(LineCount("") == 0);
  CitationRef ref{"f.txt", 2, 2, {}};
  CHECK_FALSE(JudgeCitation(ref, file, true));
  ref.last_line = 4;
  auto past = JudgeCitation(ref, file, true);
  REQUIRE(past);
  CHECK(past->reason == "past_end");
  CHECK(past->detail == "is past the end (3 lines)");
  ref = {"f.txt", 2, 3, {"two words three"}};  // whitespace runs compare as one space
  CHECK_FALSE(JudgeCitation(ref, file, true));
  ref.quotes = {"four"};
  auto missing = JudgeCitation(ref, file, true);
  REQUIRE(missing);
  CHECK(missing->reason == "quote_not_found");
  CHECK(missing->detail == "does not hold `four`");
  ref = {"f.txt", 3, 3, {}};  // the cut read's last line is partial: not known
  auto cut = JudgeCitation(ref, "one\ntwo\nthr", false);
  REQUIRE(cut);
  CHECK(cut->reason == "not_checkable");
}

}  // namespace
}  // namespace pi_fusion::workflow
