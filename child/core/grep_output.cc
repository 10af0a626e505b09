#include "child/core/grep_output.h"

#include <utility>

namespace pi_fusion::child {

GrepOutput::GrepOutput(PiTruncation pi, GrepOutputOptions options)
    : pi_(std::move(pi)), options_(std::move(options)) {}

bool GrepOutput::Add(const RipgrepLine& line) {
  if (!limit_hit_) {
    Push(line, line.match);
    if (!line.match) return true;
    if (++matches_ >= options_.limit) {
      limit_hit_ = true;
      trailing_end_ = line.line_number + options_.context;
    }
    return true;
  }
  // Past the limit only the last match's trailing context is shown; a further match means there
  // were more (Pi's "limit reached" notice), and ends the output once the context is complete.
  const bool in_window = line.path == last_file_ && line.line_number <= trailing_end_;
  if (in_window) Push(line, false);
  if (line.match) limit_reached_ = true;
  return !(limit_reached_ && !(in_window && line.line_number < trailing_end_));
}

GrepOutputResult GrepOutput::Finish(bool capped) const {
  GrepOutputResult result;
  if (matches_ == 0) {
    result.text = "No matches found";
    return result;
  }
  result.matched = true;
  std::string raw;
  for (const std::string& l : lines_) raw += (raw.empty() ? "" : "\n") + l;
  CutHead head = pi_.head(raw);
  result.text = std::move(head.content);
  result.head_truncated = head.truncated;
  result.total_lines = line_count_;
  result.total_bytes = bytes_ - 1;  // no "\n" after the last line
  result.lines_truncated = lines_truncated_;
  std::vector<std::string> notices;
  if (limit_reached_) {
    notices.push_back(std::to_string(options_.limit) + " matches limit reached. Use limit=" +
                      std::to_string(options_.limit * 2) + " for more, or refine pattern");
    result.match_limit_reached = options_.limit;
  }
  if (head.truncated) notices.push_back(pi_.format_size(pi_.max_bytes) + " limit reached");
  if (lines_truncated_) {
    notices.push_back("Some lines truncated to " + std::to_string(kGrepMaxLineLength) +
                      " chars. Use read tool to see full lines");
  }
  // Pi's grep kills ripgrep at the limit; ours reads it whole up to a cap, which is said when hit.
  if (capped && !limit_reached_) {
    notices.push_back("ripgrep's output passed 32 MiB and was cut; refine the pattern");
  }
  std::string joined;
  for (const std::string& n : notices) joined += (joined.empty() ? "" : ". ") + n;
  if (!joined.empty()) result.text += "\n\n[" + joined + "]";
  return result;
}

void GrepOutput::Push(const RipgrepLine& line, bool match) {
  last_file_ = line.path;
  std::string path = options_.single_name;
  if (path.empty()) {
    path = line.path;
    while (path.compare(0, 2, "./") == 0) path.erase(0, 2);
  }
  std::string text = line.text;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (!text.empty() && text.back() == '\r') text.pop_back();
  CutLine cut = pi_.line(text);
  if (cut.truncated) lines_truncated_ = true;
  const std::string shown = path + (match ? ":" : "-") + std::to_string(line.line_number) +
                            (match ? ": " : "- ") + cut.text;
  // Lines past the byte cap are counted, not kept: truncateHead would drop them anyway.
  if (bytes_ - 1 <= pi_.max_bytes) lines_.push_back(shown);
  bytes_ += static_cast<int64_t>(shown.size()) + 1;
  ++line_count_;
}

}  // namespace pi_fusion::child
