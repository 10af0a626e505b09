// Pi's grep output format over ripgrep's lines (child/core/grep_output.h), with stand-ins for
// Pi's truncation helpers: lines over 10 bytes are cut, the head keeps whole lines within the cap.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "child/core/grep_output.h"

namespace pi_fusion::child {
namespace {

PiTruncation FakePi(int64_t max_bytes) {
  PiTruncation pi;
  pi.line = [](const std::string& text) {
    if (text.size() <= 10) return CutLine{text, false};
    return CutLine{text.substr(0, 10) + "... [truncated]", true};
  };
  pi.head = [max_bytes](const std::string& text) {
    CutHead head;
    size_t start = 0;
    while (start <= text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(start, end - start);
      const size_t grown = head.content.size() + (head.content.empty() ? 0 : 1) + line.size();
      if (static_cast<int64_t>(grown) > max_bytes) {
        head.truncated = true;
        break;
      }
      head.content += (head.content.empty() ? "" : "\n") + line;
      start = end + 1;
    }
    return head;
  };
  pi.format_size = [](int64_t bytes) { return std::to_string(bytes) + "B"; };
  pi.max_bytes = max_bytes;
  return pi;
}

RipgrepLine Match(std::string path, int64_t n, std::string text) {
  return RipgrepLine{std::move(path), n, std::move(text) + "\n", true};
}
RipgrepLine Context(std::string path, int64_t n, std::string text) {
  return RipgrepLine{std::move(path), n, std::move(text) + "\n", false};
}

// Adds lines until the output says it is complete; returns how many it took.
size_t Feed(GrepOutput& out, const std::vector<RipgrepLine>& lines) {
  size_t taken = 0;
  for (const RipgrepLine& line : lines) {
    ++taken;
    if (!out.Add(line)) break;
  }
  return taken;
}

TEST_CASE("GrepOutput: no match is Pi's 'No matches found' without details") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{});
  Feed(out, {Context("./a.txt", 1, "before")});
  GrepOutputResult r = out.Finish(false);
  CHECK_FALSE(r.matched);
  CHECK(r.text == "No matches found");
  CHECK_FALSE(r.match_limit_reached);
}

TEST_CASE("GrepOutput: matches and context in Pi's shapes, rg's './' dropped, CRLF ends cut") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{});
  Feed(out, {Context("./src/a.c", 2, "ctx\r"), Match("./src/a.c", 3, "hit")});
  GrepOutputResult r = out.Finish(false);
  CHECK(r.matched);
  CHECK(r.text == "src/a.c-2- ctx\nsrc/a.c:3: hit");
  CHECK(r.total_lines == 2);
  CHECK(r.total_bytes == static_cast<int64_t>(r.text.size()));
  CHECK_FALSE(r.head_truncated);
  CHECK_FALSE(r.lines_truncated);
}

TEST_CASE("GrepOutput: a search of one file names the file") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{100, 0, "a.c"});
  Feed(out, {Match("/proc/self/fd/7", 1, "hit")});
  CHECK(out.Finish(false).text == "a.c:1: hit");
}

TEST_CASE("GrepOutput: a match after the limit stops the output with Pi's notice") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{2, 0, ""});
  const size_t taken = Feed(out, {Match("a", 1, "x"), Match("a", 2, "y"), Match("a", 3, "z"),
                                  Match("a", 4, "never read")});
  CHECK(taken == 3);
  GrepOutputResult r = out.Finish(false);
  CHECK(r.text ==
        "a:1: x\na:2: y\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]");
  CHECK(r.match_limit_reached == 2);
}

TEST_CASE("GrepOutput: exactly the limit's matches is no limit notice") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{2, 0, ""});
  Feed(out, {Match("a", 1, "x"), Match("a", 2, "y")});
  GrepOutputResult r = out.Finish(false);
  CHECK(r.text == "a:1: x\na:2: y");
  CHECK_FALSE(r.match_limit_reached);
}

TEST_CASE("GrepOutput: the last match's trailing context is kept past the limit") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{1, 2, ""});
  const size_t taken = Feed(out, {Match("a", 3, "hit"), Context("a", 4, "after"),
                                  Match("a", 5, "second"), Context("a", 6, "late")});
  // Line 5 lies in the window but is a match: shown as context, and the limit is reached.
  CHECK(taken == 3);
  GrepOutputResult r = out.Finish(false);
  CHECK(r.text ==
        "a:3: hit\na-4- after\na-5- second\n\n[1 matches limit reached. Use limit=2 "
        "for more, or refine pattern]");
  CHECK(r.total_lines == 3);
}

TEST_CASE("GrepOutput: context of another file after the limit is not shown") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{1, 2, ""});
  Feed(out, {Match("a", 3, "hit"), Context("b", 4, "other"), Match("b", 5, "more")});
  CHECK(out.Finish(false).text ==
        "a:3: hit\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]");
}

TEST_CASE("GrepOutput: a long line is cut by Pi's truncateLine, with Pi's notice") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{});
  Feed(out, {Match("a", 1, "0123456789abcdef")});
  GrepOutputResult r = out.Finish(false);
  CHECK(r.lines_truncated);
  CHECK(r.text ==
        "a:1: 0123456789... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to "
        "see full lines]");
}

TEST_CASE("GrepOutput: output over Pi's byte cap is cut by truncateHead, with Pi's notice") {
  GrepOutput out(FakePi(20), GrepOutputOptions{});
  Feed(out,
       {Match("a", 1, "one"), Match("a", 2, "two"), Match("a", 3, "three"), Match("a", 4, "four")});
  GrepOutputResult r = out.Finish(false);
  CHECK(r.head_truncated);
  CHECK(r.text == "a:1: one\na:2: two\n\n[20B limit reached]");
  // The totals count every line formatted, also those past the cap that were never kept.
  CHECK(r.total_lines == 4);
  CHECK(r.total_bytes == 8 + 1 + 8 + 1 + 10 + 1 + 9);
}

TEST_CASE("GrepOutput: notices joined in Pi's order; the output cap named unless the limit was") {
  GrepOutput out(FakePi(1000), GrepOutputOptions{});
  Feed(out, {Match("a", 1, "0123456789abcdef")});
  CHECK(out.Finish(true).text ==
        "a:1: 0123456789... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to "
        "see full lines. ripgrep's output passed 32 MiB and was cut; refine the pattern]");

  GrepOutput limited(FakePi(1000), GrepOutputOptions{1, 0, ""});
  Feed(limited, {Match("a", 1, "x"), Match("a", 2, "y")});
  CHECK(limited.Finish(true).text ==
        "a:1: x\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]");
}

}  // namespace
}  // namespace pi_fusion::child
