#include "views/markdown_literals.h"

#include <cctype>
#include <utility>

namespace pi_fusion::views {
namespace {

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// The fence a line opens or closes: its character and length ("```" -> {'`', 3}); {0, 0} when
// the line is no fence. Up to three spaces may precede it.
std::pair<char, size_t> FenceOf(std::string_view line) {
  size_t at = 0;
  while (at < line.size() && at < 3 && line[at] == ' ') ++at;
  if (at >= line.size() || (line[at] != '`' && line[at] != '~')) return {0, 0};
  const char c = line[at];
  size_t n = 0;
  while (at + n < line.size() && line[at + n] == c) ++n;
  return n >= 3 ? std::pair<char, size_t>{c, n} : std::pair<char, size_t>{0, 0};
}

// Indented code: four spaces or a tab before any text.
bool IsIndentedCode(std::string_view line) {
  size_t spaces = 0;
  for (char c : line) {
    if (c == '\t') return true;
    if (c != ' ') break;
    if (++spaces == 4) return true;
  }
  return false;
}

// One line of paragraph text: its intraword `*` runs escaped, inline code spans kept as they are.
std::string EscapeLine(std::string_view line) {
  std::string out;
  out.reserve(line.size() + 8);
  for (size_t i = 0; i < line.size();) {
    if (line[i] == '`') {
      size_t ticks = 0;
      while (i + ticks < line.size() && line[i + ticks] == '`') ++ticks;
      const size_t close = line.find(std::string(ticks, '`'), i + ticks);
      const size_t end = close == std::string_view::npos ? i + ticks : close + ticks;
      out.append(line.substr(i, end - i));
      i = end;
      continue;
    }
    if (line[i] == '*') {
      size_t stars = 0;
      while (i + stars < line.size() && line[i + stars] == '*') ++stars;
      const bool between = i > 0 && IsWordChar(line[i - 1]) && i + stars < line.size() &&
                           IsWordChar(line[i + stars]);
      for (size_t k = 0; k < stars; ++k) out += between ? "\\*" : "*";
      i += stars;
      continue;
    }
    out += line[i++];
  }
  return out;
}

}  // namespace

std::string KeepIntrawordStars(std::string_view markdown) {
  std::string out;
  out.reserve(markdown.size() + 16);
  std::pair<char, size_t> open_fence{0, 0};
  for (size_t start = 0; start <= markdown.size();) {
    size_t end = markdown.find('\n', start);
    const bool last = end == std::string_view::npos;
    if (last) end = markdown.size();
    const std::string_view line = markdown.substr(start, end - start);
    const std::pair<char, size_t> fence = FenceOf(line);
    if (open_fence.first != 0) {
      if (fence.first == open_fence.first && fence.second >= open_fence.second) open_fence = {0, 0};
      out.append(line);
    } else if (fence.first != 0) {
      open_fence = fence;
      out.append(line);
    } else {
      out += IsIndentedCode(line) ? std::string(line) : EscapeLine(line);
    }
    if (last) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

void KeepIntrawordStarsInView(nlohmann::json& view) {
  if (view.is_array()) {
    for (nlohmann::json& item : view) KeepIntrawordStarsInView(item);
    return;
  }
  if (!view.is_object()) return;
  for (auto& [key, value] : view.items()) {
    if ((key == "markdown" || key == "preview") && value.is_string()) {
      value = KeepIntrawordStars(value.get_ref<const std::string&>());
    } else if (value.is_structured()) {
      KeepIntrawordStarsInView(value);
    }
  }
}

}  // namespace pi_fusion::views
