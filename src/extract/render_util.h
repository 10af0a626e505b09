// Helpers of the HTML renderer: element classes, attributes, and the small text rules for
// links and code. Internal to src/extract/. Pure functions; thread-safe.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace pi_fusion::extract {

// Links longer than this are rendered as their text: such hrefs are tracking blobs or data.
inline constexpr size_t kMaxHrefBytes = 2048;

const GumboVector& ChildrenOf(const GumboNode* node);
bool IsHtmlElement(const GumboNode* node);
// Elements that start and end a line (div, section, td outside a table, ...).
bool IsBlockContainer(GumboTag t);
// Gumbo tag of an element, with the nesting guard's renamed formatting spans mapped back.
GumboTag EffectiveTag(const GumboElement& element);
// Attribute value or "" when absent.
std::string_view Attribute(const GumboElement& element, const char* name);
// Elements whose content is never rendered (scripts, styles, head, media, form controls, SVG)
// and elements hidden with the `hidden` attribute or an inline display:none/visibility:hidden.
bool IsSkipped(const GumboElement& element);

std::string_view TrimSpace(std::string_view s);
// False for fragment-only, javascript:, data: and vbscript: links and very long ones.
bool IsUsefulHref(std::string_view href);
// Percent-encodes what would end a Markdown link destination early; drops tabs and newlines as
// URL parsers do.
std::string EscapeHref(std::string_view href);
// "language-cpp" or "lang-cpp" in a class list → "cpp" (only characters safe in an info string).
std::string LanguageFromClass(std::string_view classes);
size_t LongestRun(std::string_view s, char c);
// A decimal attribute value clamped to 0..999,999,999 (what a Markdown list marker can hold), or
// `fallback` when it is not a number.
long ParseLong(std::string_view s, long fallback);

}  // namespace pi_fusion::extract
