#include "workflow/markdown_sanitize.h"

#include <cctype>
#include <vector>

#include "core/utf8.h"

namespace pi_fusion::workflow {
namespace {

bool IsRemovedControl(char32_t cp) {
  if (cp < 0x20) return cp != '\n' && cp != '\t';
  if (cp >= 0x7F && cp <= 0x9F) return true;
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// Printable text: newlines normalized, controls removed, `<` escaped; U+2028/U+2029 become LF.
std::string Printable(std::string_view raw) {
  const std::string text = RepairUtf8(raw);
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const Utf8Step step = DecodeUtf8At(text, i);  // always valid: the text is repaired
    const char32_t cp = step.code_point;
    const size_t length = step.length;
    if (cp == '\r') {
      out += '\n';
      if (i + 1 < text.size() && text[i + 1] == '\n') ++i;
    } else if (cp == 0x2028 || cp == 0x2029) {
      out += '\n';
    } else if (cp == '<') {
      out += "\\<";
    } else if (!IsRemovedControl(cp)) {
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n'; }

std::string Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return std::string(s);
}

// True when `line` is only `-`, `*`, `_` and spaces, with at least one of the three.
bool IsRuleLine(std::string_view line) {
  bool mark = false;
  for (char c : line) {
    if (c == '-' || c == '*' || c == '_') {
      mark = true;
    } else if (c != ' ' && c != '\t') {
      return false;
    }
  }
  return mark;
}

// Where a line's content starts after the container markers Markdown would read first: block
// quote markers `>` and list markers (`-`, `*`, `+`, or digits with `.` or `)`, each followed by
// a space), so that `> # x` and `- ---` are judged by their content.
size_t ContentStart(std::string_view line) {
  size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    size_t next = i;
    if (c == '>') {
      next = i + 1;
    } else if ((c == '-' || c == '*' || c == '+') && i + 1 < line.size() && line[i + 1] == ' ') {
      next = i + 1;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
      if (j + 1 < line.size() && (line[j] == '.' || line[j] == ')') && line[j + 1] == ' ') {
        next = j + 1;
      }
    }
    if (next == i) return i;
    while (next < line.size() && (line[next] == ' ' || line[next] == '\t')) ++next;
    i = next;
  }
  return i;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) return lines;
    start = end + 1;
  }
}

}  // namespace

std::string SanitizeInlineMarkdown(std::string_view raw) {
  const std::string text = Printable(raw);
  std::string out;
  for (char c : text) {
    if (IsSpace(c)) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  out = Trim(out);
  if (out.empty()) return out;
  if (std::ispunct(static_cast<unsigned char>(out.front())) && out.front() != '\\') {
    return "\\" + out;
  }
  size_t digits = 0;
  while (digits < out.size() && std::isdigit(static_cast<unsigned char>(out[digits]))) ++digits;
  if (digits > 0 && digits < out.size() && (out[digits] == '.' || out[digits] == ')')) {
    out.insert(digits, "\\");
  }
  return out;
}

std::string SanitizeBlockMarkdown(std::string_view raw) {
  std::string out;
  bool blank_pending = false;
  for (std::string line : Lines(Printable(raw))) {
    line = Trim(line);
    if (line.empty()) {
      blank_pending = !out.empty();
      continue;
    }
    const size_t start = ContentStart(line);
    const std::string_view content = std::string_view(line).substr(start);
    const char first = content.empty() ? ' ' : content.front();
    if (first == '#' || first == '`' || first == '~' || first == '=' || first == '|' ||
        IsRuleLine(content)) {
      line.insert(start, "\\");
    }
    if (!out.empty()) out += blank_pending ? "\n\n" : "\n";
    blank_pending = false;
    out += line;
  }
  return out;
}

}  // namespace pi_fusion::workflow
