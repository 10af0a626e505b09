#include "extract/writer.h"

#include <algorithm>
#include <utility>

namespace pi_fusion::extract {
namespace {

// Length of the whitespace character at s[i] (ASCII whitespace or U+00A0), or 0.
size_t SpaceAt(std::string_view s, size_t i) {
  const char c = s[i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') return 1;
  if (c == '\xC2' && i + 1 < s.size() && s[i + 1] == '\xA0') return 2;
  return 0;
}

// Appends `s` without C0/C1 control characters (other than tab when `keep_tab`).
void AppendVisible(std::string_view s, bool keep_tab, std::string* out) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 && !(keep_tab && c == '\t')) continue;
    if (c == 0x7F) continue;
    if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
      ++i;  // U+0080..U+009F
      continue;
    }
    out->push_back(s[i]);
  }
}

}  // namespace

void Writer::Text(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (const size_t n = SpaceAt(text, i); n > 0) {
      if (!out_.empty()) pending_space_ = true;
      i += n;
      continue;
    }
    size_t j = i;
    while (j < text.size() && SpaceAt(text, j) == 0) ++j;
    Word(text.substr(i, j - i));
    i = j;
  }
}

void Writer::Word(std::string_view word) {
  BeginContent();
  if (!InLink()) return AppendVisible(word, /*keep_tab=*/false, &out_);
  std::string escaped;
  for (const char c : word) {
    if (c == '[' || c == ']') escaped.push_back('\\');
    escaped.push_back(c);
  }
  AppendVisible(escaped, /*keep_tab=*/false, &out_);
}

void Writer::Atom(std::string_view text) {
  if (text.empty()) return;
  BeginContent();
  AppendVisible(text, /*keep_tab=*/false, &out_);
}

void Writer::BeginContent() {
  if (out_.empty() || pending_newlines_ > 0) {
    StartLine();
    if (!cell_) out_.append(line_marker_);
    line_marker_.clear();
  } else if (pending_space_) {
    out_.push_back(' ');
  }
  pending_space_ = false;
  for (Mark& m : marks_) {
    if (m.written || m.ended) continue;
    out_.append(m.open);
    m.written = true;
  }
}

void Writer::StartLine() {
  if (!out_.empty()) {
    out_.push_back('\n');
    if (pending_newlines_ >= 2) {
      // An empty line keeps the prefixes of the blocks already open (">" in a quote).
      const size_t at = out_.size();
      for (const Prefix& p : prefixes_) {
        if (p.used) out_.append(p.rest);
      }
      while (out_.size() > at && out_.back() == ' ') out_.pop_back();
      out_.push_back('\n');
    }
  }
  pending_newlines_ = 0;
  pending_space_ = false;
  if (cell_) return;
  for (Prefix& p : prefixes_) {
    out_.append(p.used ? p.rest : p.first);
    p.used = true;
  }
}

void Writer::Break(bool blank_line) {
  if (BreaksAreSpaces()) {
    if (!out_.empty()) pending_space_ = true;
    return;
  }
  CloseWrittenMarks(/*end=*/true);
  if (out_.empty()) return;
  pending_newlines_ = std::max(pending_newlines_, blank_line ? 2 : 1);
  pending_space_ = false;
}

void Writer::LineBreak() {
  if (BreaksAreSpaces()) {
    if (!out_.empty()) pending_space_ = true;
    return;
  }
  CloseWrittenMarks(/*end=*/false);
  if (out_.empty()) return;
  pending_newlines_ = std::max(pending_newlines_, 1);
  pending_space_ = false;
}

void Writer::CloseWrittenMarks(bool end) {
  for (auto it = marks_.rbegin(); it != marks_.rend(); ++it) {
    if (!it->written || it->ended) continue;
    out_.append(it->close);
    it->written = false;
    it->ended = end;  // a mark not yet written still applies after the break
  }
}

void Writer::PushPrefix(std::string first, std::string rest) {
  prefixes_.push_back({std::move(first), std::move(rest)});
}

void Writer::PopPrefix() { prefixes_.pop_back(); }

void Writer::OpenMark(std::string open, std::string close, bool link) {
  marks_.push_back({std::move(open), std::move(close), link});
}

void Writer::CloseMark() {
  const Mark& m = marks_.back();
  if (m.written && !m.ended) out_.append(m.close);
  marks_.pop_back();
}

bool Writer::InLink() const {
  for (const Mark& m : marks_) {
    if (m.link && !m.ended) return true;
  }
  return false;
}

bool Writer::HasMark(std::string_view open) const {
  for (const Mark& m : marks_) {
    if (m.open == open && !m.ended) return true;
  }
  return false;
}

void Writer::Line(std::string_view line) {
  if (cell_) {
    if (!out_.empty()) pending_space_ = true;
    return Text(line);
  }
  if (!out_.empty() && pending_newlines_ == 0) pending_newlines_ = 1;
  if (out_.empty() || pending_newlines_ > 0) StartLine();
  AppendVisible(line, /*keep_tab=*/true, &out_);
  while (!out_.empty() && (out_.back() == ' ' || out_.back() == '\t')) out_.pop_back();
}

std::string Writer::Take() {
  std::string result = std::move(out_);
  out_.clear();
  pending_newlines_ = 0;
  pending_space_ = false;
  return result;
}

}  // namespace pi_fusion::extract
