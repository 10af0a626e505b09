#include "net/extractor.h"

#include "net/fetch_limits.h"
#include "net/media_type.h"

namespace pi_fusion::net {
namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is invalid or cut off.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  size_t len = b0 < 0x80           ? 1
               : (b0 >> 5) == 0x6  ? 2
               : (b0 >> 4) == 0xE  ? 3
               : (b0 >> 3) == 0x1E ? 4
                                   : 0;
  if (len == 0 || i + len > text.size()) return 0;
  uint32_t c = len == 1 ? b0 : (b0 & (0x7F >> len));
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < kMin[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return 0;
  return len;
}

// Replaces each invalid byte with U+FFFD so the output is always valid UTF-8.
std::string SanitizeUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    size_t len = Utf8SequenceLength(text, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, len));
      i += len;
    }
  }
  return out;
}

}  // namespace

std::string_view ExtractFormatName(ExtractFormat format) {
  return format == ExtractFormat::kText ? "text" : "markdown";
}

std::string_view TruncateUtf8(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Step back over continuation bytes to the start of the sequence that would be split.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

namespace {

Result<Extracted> PassThrough(std::string_view body, std::string_view content_type) {
  const std::string media_type = MediaType(content_type);
  if (media_type != "text/plain" && media_type != "text/markdown") {
    return Status::Error("extraction_failed",
                         "this pi-fusion build has no HTML extractor (" + media_type + ")");
  }
  // Sanitize only what can survive the cap (+4 so a sequence cut at the cap is seen whole).
  std::string clean = SanitizeUtf8(body.substr(0, kMaxExtractedTextBytes + 4));
  Extracted out;
  out.truncated = clean.size() > kMaxExtractedTextBytes || body.size() > kMaxExtractedTextBytes + 4;
  out.text = std::string(TruncateUtf8(clean, kMaxExtractedTextBytes));
  return out;
}

}  // namespace

Extractor PassThroughExtractor() {
  return [](std::string_view body, std::string_view content_type, ExtractFormat) {
    return PassThrough(body, content_type);
  };
}

}  // namespace pi_fusion::net
