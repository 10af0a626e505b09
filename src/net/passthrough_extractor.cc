#include "net/extractor.h"

#include "core/utf8.h"
#include "net/fetch_limits.h"
#include "net/media_type.h"

namespace pi_fusion::net {

std::string_view ExtractFormatName(ExtractFormat format) {
  return format == ExtractFormat::kText ? "text" : "markdown";
}

namespace {

Result<Extracted> PassThrough(std::string_view body, std::string_view content_type) {
  const std::string media_type = MediaType(content_type);
  if (media_type != "text/plain" && media_type != "text/markdown") {
    return Status::Error("extraction_failed",
                         "this pi-fusion build has no HTML extractor (" + media_type + ")");
  }
  // Repair only what can survive the cap (+4 so a sequence cut at the cap is seen whole).
  std::string clean = RepairUtf8(body.substr(0, kMaxExtractedTextBytes + 4));
  Extracted out;
  out.truncated = clean.size() > kMaxExtractedTextBytes || body.size() > kMaxExtractedTextBytes + 4;
  out.text = TruncateUtf8(clean, kMaxExtractedTextBytes);
  return out;
}

}  // namespace

Extractor PassThroughExtractor() {
  return [](std::string_view body, std::string_view content_type, ExtractFormat) {
    return PassThrough(body, content_type);
  };
}

}  // namespace pi_fusion::net
