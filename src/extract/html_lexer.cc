#include "extract/html_lexer.h"

namespace pi_fusion::extract {
namespace {

constexpr size_t kNpos = std::string_view::npos;

// Scans attributes from s[i] up to the '>' that closes the tag, calling fn (when set) for each.
// Returns the offset of that '>' or kNpos when the input ends first.
size_t ScanAttributes(std::string_view s, size_t i, bool* self_closing,
                      const std::function<bool(std::string_view, std::string_view)>* fn) {
  *self_closing = false;
  bool stopped = false;
  while (i < s.size()) {
    const char c = s[i];
    if (IsHtmlSpace(c)) {
      ++i;
    } else if (c == '>') {
      return i;
    } else if (c == '/') {
      ++i;
      if (i < s.size() && s[i] == '>') {
        *self_closing = true;
        return i;
      }
    } else {
      // Attribute name: a leading '=' belongs to the name, as in the tokenizer.
      const size_t name_begin = i++;
      while (i < s.size() && !IsHtmlSpace(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=') ++i;
      const std::string_view name = s.substr(name_begin, i - name_begin);
      size_t j = i;
      while (j < s.size() && IsHtmlSpace(s[j])) ++j;
      std::string_view value;
      if (j < s.size() && s[j] == '=') {
        ++j;
        while (j < s.size() && IsHtmlSpace(s[j])) ++j;
        if (j < s.size() && (s[j] == '"' || s[j] == '\'')) {
          const size_t close = s.find(s[j], j + 1);
          if (close == kNpos) return kNpos;
          value = s.substr(j + 1, close - j - 1);
          i = close + 1;
        } else {
          const size_t value_begin = j;
          while (j < s.size() && !IsHtmlSpace(s[j]) && s[j] != '>') ++j;
          value = s.substr(value_begin, j - value_begin);
          i = j;
        }
      }
      if (fn != nullptr && !stopped) stopped = !(*fn)(name, value);
    }
  }
  return kNpos;
}

}  // namespace

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

bool TagLexer::Next(Tag* tag) {
  while (pos_ < html_.size()) {
    const size_t lt = html_.find('<', pos_);
    if (lt == kNpos || lt + 1 >= html_.size()) break;
    const char c = html_[lt + 1];
    if (IsAsciiAlpha(c)) {
      if (LexTag(lt, /*end_tag=*/false, tag)) return true;
      break;
    }
    if (c == '/') {
      if (lt + 2 < html_.size() && IsAsciiAlpha(html_[lt + 2])) {
        if (LexTag(lt, /*end_tag=*/true, tag)) return true;
        break;
      }
      SkipPast('>', lt + 2);  // "</>" is dropped, "</3" is a bogus comment
    } else if (c == '!' && html_.substr(lt + 2, 2) == "--") {
      SkipComment(lt + 4);
    } else if (c == '!' || c == '?') {
      SkipPast('>', lt + 2);  // doctype, CDATA outside foreign content, processing instruction
    } else {
      pos_ = lt + 1;  // a literal '<'
    }
  }
  pos_ = html_.size();
  return false;
}

bool TagLexer::LexTag(size_t lt, bool end_tag, Tag* tag) {
  const size_t name_begin = lt + (end_tag ? 2 : 1);
  size_t i = name_begin;
  while (i < html_.size() && !IsHtmlSpace(html_[i]) && html_[i] != '/' && html_[i] != '>') ++i;
  bool self_closing = false;
  const size_t gt = ScanAttributes(html_, i, &self_closing, nullptr);
  if (gt == kNpos) return false;
  tag->end_tag = end_tag;
  tag->self_closing = self_closing;
  tag->name = html_.substr(name_begin, i - name_begin);
  tag->attributes = html_.substr(i, gt - i);
  tag->begin = lt;
  tag->end = gt + 1;
  pos_ = gt + 1;
  return true;
}

void TagLexer::SkipComment(size_t body) {
  // "<!-->" and "<!--->" are complete (empty) comments; otherwise "-->" or "--!>" ends one.
  if (html_.substr(body, 1) == ">") {
    pos_ = body + 1;
    return;
  }
  if (html_.substr(body, 2) == "->") {
    pos_ = body + 2;
    return;
  }
  for (size_t k = html_.find("--", body); k != kNpos; k = html_.find("--", k + 1)) {
    if (html_.substr(k + 2, 1) == ">") {
      pos_ = k + 3;
      return;
    }
    if (html_.substr(k + 2, 2) == "!>") {
      pos_ = k + 4;
      return;
    }
  }
  pos_ = html_.size();
}

void TagLexer::SkipPast(char c, size_t from) {
  const size_t at = html_.find(c, from);
  pos_ = at == kNpos ? html_.size() : at + 1;
}

void TagLexer::SkipRawText(std::string_view name) {
  for (size_t k = html_.find("</", pos_); k != kNpos; k = html_.find("</", k + 2)) {
    const size_t after = k + 2 + name.size();
    if (after > html_.size()) break;
    if (!EqualsIgnoreCase(html_.substr(k + 2, name.size()), name)) continue;
    if (after == html_.size() || IsHtmlSpace(html_[after]) || html_[after] == '/' ||
        html_[after] == '>') {
      pos_ = k;
      return;
    }
  }
  pos_ = html_.size();
}

void ForEachAttribute(std::string_view attributes,
                      const std::function<bool(std::string_view, std::string_view)>& fn) {
  bool self_closing = false;
  ScanAttributes(attributes, 0, &self_closing, &fn);
}

}  // namespace pi_fusion::extract
