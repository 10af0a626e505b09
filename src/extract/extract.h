// Extraction of readable text or Markdown from fetched documents: the code behind
// `pi-fusion extract` and the fetcher's `extract` step (spec: fusion_research, "Fetch hygiene").
//
// HTML and XHTML are parsed with gumbo and rendered: headings, paragraphs, nested lists, links,
// code spans and fenced blocks, block quotes, emphasis, images as their alt text and tables as
// GFM pipe tables; script, style, noscript, template, head and hidden content are dropped.
// Plain text and Markdown pass through with whitespace tidied. Input is decoded from the
// Content-Type charset, a <meta> declaration or a byte order mark (UTF-8, Windows-1252 and its
// ISO-8859-1/ASCII aliases, UTF-16 with BOM) and invalid UTF-8 becomes U+FFFD.
//
// Hostile input is bounded: nesting deeper than kMaxDepth is flattened to text, documents are
// cut after kMaxElements start tags, rendering stops after kMaxNodes nodes, and the parser may
// use at most kMaxParserBytes. The output never exceeds ExtractOptions::max_output_bytes; when
// anything was left out it ends with a marker line such as
// "[truncated: output exceeded 32768 bytes]" (for the default cap), counted within the cap.
//
// Extract is a pure function of its arguments: thread-safe, no global state.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/limits.h"
#include "pi_fusion/status.h"

namespace pi_fusion::extract {

enum class Format { kText, kMarkdown };

struct ExtractOptions {
  Format format = Format::kMarkdown;
  // Cap on ExtractOutput::text in bytes, truncation marker included. REQUIRES: > 0.
  size_t max_output_bytes = kMaxExtractedTextBytes;
  // The response's Content-Type, e.g. "text/html; charset=windows-1252". Empty means HTML.
  std::string content_type;
};

struct ExtractOutput {
  std::string text;        // well-formed UTF-8, no trailing newline
  bool truncated = false;  // true when the text ends with a truncation marker
};

// Limits on hostile documents (see the file comment).
inline constexpr size_t kMaxDepth = 256;
inline constexpr size_t kMaxElements = 250'000;
inline constexpr size_t kMaxNodes = 500'000;
inline constexpr size_t kMaxParserBytes = size_t{256} << 20;

// Errors (code "extraction_failed"): a content type other than text/html,
// application/xhtml+xml, text/plain or text/markdown; a document the parser cannot fit in
// kMaxParserBytes.
Result<ExtractOutput> Extract(std::string_view body, const ExtractOptions& options);

}  // namespace pi_fusion::extract
