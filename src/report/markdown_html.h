// Markdown from a model, rendered to HTML with cmark-gfm (GitHub's maintained CommonMark library,
// with its table, strikethrough and autolink extensions: answers are full of tables).
//
// Safe with hostile text, in layers:
//   - control characters are shown as visible text first (core's NeutralizeControls);
//   - cmark-gfm's safe mode (the default; CMARK_OPT_UNSAFE is never set): raw HTML blocks and
//     inline HTML become "<!-- raw HTML omitted -->", and javascript:, vbscript:, file: and data:
//     URLs are dropped;
//   - on top of that every link keeps its URL only when it is http, https or mailto, and every
//     image becomes a link to its URL (the page never loads anything, so the report stays one
//     self-contained file and shows what a model pointed at without fetching it);
//   - input past kMarkdownMaxBytes is cut at a character boundary, with a note.
//
// Pure; thread-safe (cmark-gfm's extension registry is filled once, under a static local).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pi_fusion::report {

// Markdown past this many bytes is not rendered (answers are capped at 48 KiB, the merged answer
// at 64 KiB; this bounds anything else).
inline constexpr size_t kMarkdownMaxBytes = 96 * 1024;

// `markdown` as an HTML fragment.
std::string MarkdownHtml(std::string_view markdown);

// True for a URL a report may link to: http:, https: or mailto: (scheme case-insensitive).
bool IsLinkableUrl(std::string_view url);

}  // namespace pi_fusion::report
