// The extraction seam: turns a fetched body into the text or Markdown handed to the caller.
//
// The fetcher does not know how HTML becomes text; the CLI plugs in the gumbo extractor
// (src/extract) when it is built, and PassThroughExtractor otherwise. Whatever the extractor,
// its output is capped at kMaxExtractedTextBytes and `truncated` records whether it was cut.
// Extractors are called from one thread at a time.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion::net {

enum class ExtractFormat { kText, kMarkdown };

// "text" / "markdown".
std::string_view ExtractFormatName(ExtractFormat format);

struct Extracted {
  std::string text;  // valid UTF-8 (invalid input bytes replaced), at most kMaxExtractedTextBytes
  bool truncated = false;
};

// `content_type` is the response's Content-Type value with its parameters
// ("text/html; charset=windows-1252"), so the extractor can honour the charset.
// Errors: extraction_failed.
using Extractor = std::function<Result<Extracted>(
    std::string_view body, std::string_view content_type, ExtractFormat format)>;

// text/plain and text/markdown pass through (capped at a UTF-8 boundary); HTML and XHTML fail
// with extraction_failed because this build has no HTML extractor.
Extractor PassThroughExtractor();

}  // namespace pi_fusion::net
