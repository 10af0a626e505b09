#include "report/html_text.h"

#include <cmath>
#include <cstdio>

namespace pi_fusion::report {

std::string EscapeHtml(std::string_view text) {
  // The five characters that end a text or a quoted attribute value, and their entities.
  static constexpr std::string_view kSpecial = "&<>\"'";
  static constexpr std::string_view kEntities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (const char c : text) {
    const size_t which = kSpecial.find(c);
    if (which == std::string_view::npos) {
      out += c;
    } else {
      out += kEntities[which];
    }
  }
  return out;
}

std::string HtmlText(std::string_view text, TextShape shape) {
  return EscapeHtml(NeutralizeControls(text, shape));
}

std::string GroupedNumber(uint64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string DollarText(double usd) {
  if (!std::isfinite(usd)) return "–";
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), usd >= 1.0 ? "$%.2f" : "$%.4f", usd);
  return buffer;
}

std::string DurationText(int64_t millis) {
  if (millis < 0) return "–";
  if (millis < 1000) return std::to_string(millis) + " ms";
  char buffer[48];
  if (millis < 60000) {
    std::snprintf(buffer, sizeof(buffer), "%.2f s", static_cast<double>(millis) / 1000.0);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%lld min %lld s", static_cast<long long>(millis / 60000),
                  static_cast<long long>((millis % 60000) / 1000));
  }
  return buffer;
}

}  // namespace pi_fusion::report
