#include "extract/text_util.h"

#include "core/utf8.h"

namespace pi_fusion::extract {

std::string NormalizePlainText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t blank_run = 0;  // empty lines seen since the last non-empty one
  size_t i = 0;
  while (i < text.size()) {
    size_t end = i;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    std::string line;
    for (size_t k = i; k < end; ++k) {
      const auto c = static_cast<unsigned char>(text[k]);
      if ((c < 0x20 && c != '\t') || c == 0x7F) continue;
      line.push_back(text[k]);
    }
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.empty()) {
      ++blank_run;
    } else {
      if (!out.empty()) out.append(blank_run > 0 ? "\n\n" : "\n");
      out.append(line);
      blank_run = 0;
    }
    if (end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') {
      ++end;
    }
    i = end + 1;
  }
  return out;
}

std::string TruncateWithMarker(std::string_view text, size_t max_bytes, std::string_view marker) {
  if (marker.size() >= max_bytes) {
    while (!marker.empty() && marker.front() == '\n') marker.remove_prefix(1);
    return std::string(marker.substr(0, max_bytes));
  }
  size_t keep = Utf8FloorBoundary(text, max_bytes - marker.size());
  while (keep > 0 && (text[keep - 1] == ' ' || text[keep - 1] == '\n' || text[keep - 1] == '\t')) {
    --keep;
  }
  if (keep == 0) {
    while (!marker.empty() && marker.front() == '\n') marker.remove_prefix(1);
  }
  std::string out(text.substr(0, keep));
  out.append(marker);
  return out;
}

}  // namespace pi_fusion::extract
