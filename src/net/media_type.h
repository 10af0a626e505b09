// Content-Type handling for the fetcher: the media type of a header value and the accepted set
// (spec: HTML/XHTML, plain text and Markdown only). Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion::net {

// Lowercase media type of a Content-Type value, without parameters ("" when absent).
std::string MediaType(std::string_view content_type);
// text/html, application/xhtml+xml, text/plain, text/markdown.
bool IsAcceptedMediaType(std::string_view media_type);

}  // namespace pi_fusion::net
