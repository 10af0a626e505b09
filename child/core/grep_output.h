// What the candidates' grep tool hands the model: ripgrep's lines formatted as Pi's own grep tool
// formats them (Pi 1.6): "path:N: text" for a match and "path-N- text" for context, the match
// limit with the last match's trailing context, each line cut by Pi's truncateLine, the whole cut
// by Pi's truncateHead at Pi's byte cap, and the notices in Pi's words.
//
// Pi's truncation is Pi's code (its limits and its "... [truncated]" marker may change with Pi),
// so it is passed in as plain functions: the binding wraps Pi's, tests pass their own. Everything
// else is decided here.
//
// Pure code; one GrepOutput per tool call, not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "child/core/walk_tools.h"

namespace pi_fusion::child {

// Pi's GREP_MAX_LINE_LENGTH, named in the notice of a cut line.
inline constexpr int kGrepMaxLineLength = 500;
// The matches a grep shows when the model gives no limit (Pi's default).
inline constexpr int64_t kGrepDefaultLimit = 100;

// Pi's truncateLine: the line as shown, and whether it was cut.
struct CutLine {
  std::string text;
  bool truncated = false;
};
// Pi's truncateHead without a line limit: the text kept, and whether any was dropped.
struct CutHead {
  std::string content;
  bool truncated = false;
};

// Pi's truncation helpers and its byte cap (DEFAULT_MAX_BYTES). Each function may throw; the
// exception leaves GrepOutput unchanged in meaning (the call fails).
struct PiTruncation {
  std::function<CutLine(const std::string& line)> line;
  std::function<CutHead(const std::string& text)> head;
  std::function<std::string(int64_t bytes)> format_size;  // "50KB"
  int64_t max_bytes = 0;
};

struct GrepOutputOptions {
  int64_t limit = kGrepDefaultLimit;  // REQUIRES: >= 1
  int64_t context = 0;                // trailing context lines after the last match shown
  // A search of one file shows the file's name; empty: rg's path without its leading "./".
  std::string single_name;
};

// The formatted result. `details` fields are those of Pi's grep details: matchLimitReached (the
// limit, when another match came after it), truncation (when truncateHead dropped text; the
// binding adds Pi's own truncation object with total_lines and total_bytes) and linesTruncated.
struct GrepOutputResult {
  std::string text;
  bool matched = false;  // false: "No matches found" and no details at all
  std::optional<int64_t> match_limit_reached;
  bool head_truncated = false;
  int64_t total_lines = 0;  // every line formatted, kept or not
  int64_t total_bytes = 0;  // their bytes joined by "\n"
  bool lines_truncated = false;
};

class GrepOutput {
 public:
  GrepOutput(PiTruncation pi, GrepOutputOptions options);

  // One line of rg's output, in rg's order. Returns false once the output is complete (Pi stops
  // ripgrep there); later lines must not be added.
  bool Add(const RipgrepLine& line);

  // The output so far. `capped`: rg's output was cut at the walk's output cap.
  GrepOutputResult Finish(bool capped) const;

 private:
  void Push(const RipgrepLine& line, bool match);

  PiTruncation pi_;
  GrepOutputOptions options_;
  std::vector<std::string> lines_;  // those within the byte cap
  std::string last_file_;
  int64_t matches_ = 0, trailing_end_ = 0, bytes_ = 0, line_count_ = 0;
  bool limit_hit_ = false, limit_reached_ = false, lines_truncated_ = false;
};

}  // namespace pi_fusion::child
