#include "core/terminal_text.h"

#include <cstdio>

#include "core/utf8.h"

namespace pi_fusion {
namespace {

bool IsBidiControl(char32_t cp) {
  return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void AppendEscaped(const char* format, unsigned value, std::string* out) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), format, value);
  out->append(buffer);
}

}  // namespace

std::string NeutralizeControls(std::string_view text, TextShape shape) {
  const bool multi_line = shape == TextShape::kMultiLine;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const Utf8Step step = DecodeUtf8At(text, i);
    if (!step.valid) {
      for (size_t k = 0; k < step.length; ++k) {
        AppendEscaped("\\x%02x", static_cast<unsigned char>(text[i + k]), &out);
      }
    } else if (const char32_t cp = step.code_point; cp >= 0x20 && cp < 0x7F) {
      out.push_back(static_cast<char>(cp));
    } else if (multi_line && (cp == '\n' || cp == '\t')) {
      out.push_back(static_cast<char>(cp));
    } else if (multi_line && cp == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      // A CRLF line end: the "\n" that follows keeps the line break.
    } else if (cp < 0x20) {
      AppendUtf8(0x2400 + cp, &out);  // Control Pictures: U+241B is "␛"
    } else if (cp == 0x7F) {
      AppendUtf8(0x2421, &out);  // "␡"
    } else if ((cp >= 0x80 && cp <= 0x9F) || IsBidiControl(cp)) {
      AppendEscaped("\\u%04x", static_cast<unsigned>(cp), &out);
    } else {
      out.append(text.substr(i, step.length));
    }
    i += step.length;
  }
  return out;
}

void NeutralizeStrings(nlohmann::json& value) {
  if (value.is_string()) {
    value = NeutralizeControls(value.get_ref<const std::string&>());
  } else if (value.is_structured()) {
    for (auto& item : value) NeutralizeStrings(item);
  }
}

}  // namespace pi_fusion
