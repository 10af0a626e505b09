// The line citations of an answer: every `path:line` or `path:line-line` a model wrote, with or
// without backticks, in a Markdown link too, and the inline code it quoted beside it
// (docs/citations.md). The run checks them against the project (run/citation_check.h).
//
// What counts as a citation, on one line of text:
//   - a run of path characters (letters, digits, bytes >= 0x80, and `_ . / - + @ ~`) that holds
//     a `.` or a `/` and a letter, then `:`, a line number >= 1, optionally `-` and a last line
//     >= the first, optionally a `:column` (ignored);
//   - not when the path follows `://` or `:` (a URL with a port: `http://x:80`), nor when it is
//     all digits and dots (a time `12:30`, a version `1.2:3`), nor when the path starts with `//`.
// A Markdown link's target is text like any other: `[see](src/a.c:12)` cites src/a.c line 12.
// `Makefile:3` (no `.` or `/`) is not taken: too many words of prose look like it.
//
// Quoted snippets: an inline code span (backticks) on the same line that holds no citation is a
// quote of the nearest citation before it on that line (or, with none before, the first after
// it). The quote must occur in the cited lines (whitespace runs compared as one space).
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pi_fusion::workflow {

struct CitationRef {
  std::string path;  // as written, e.g. "src/lexer.c" (a leading "@" kept: the checker drops it)
  int64_t first_line = 0;
  int64_t last_line = 0;            // == first_line for a single line
  std::vector<std::string> quotes;  // inline code on the same line, in order
  std::string Ref() const;          // "src/lexer.c:900" or "src/lexer.c:10-12"
  bool operator==(const CitationRef&) const = default;
};

// Every citation of `text` in order of appearance; the same citation (path, lines, quotes) is
// listed once.
std::vector<CitationRef> ExtractCitations(std::string_view text);

// Why a citation of a file with `content` is broken: "past_end" (its last line is after the
// file's last line) or "quote_not_found", with the detail a person reads ("is past the end (612
// lines)", "does not hold `x`"); nullopt when it holds. `complete`: false when `content` is only
// the first bytes of the file (the read cap): a line past it is then "not_checkable".
struct CitationVerdict {
  std::string reason;
  std::string detail;
};
std::optional<CitationVerdict> JudgeCitation(const CitationRef& ref, std::string_view content,
                                             bool complete);

// The number of lines of `content` (a final line without a newline counts; "" has none).
int64_t LineCount(std::string_view content);

}  // namespace pi_fusion::workflow
