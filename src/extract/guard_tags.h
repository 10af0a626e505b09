// Tag classes of the HTML tree builder, as gumbo 0.10.1 implements it, for the nesting guard's
// model of the stack of open elements. Internal to src/extract/. The sets are built once, on
// first use (thread-safe static initialization), and never change.
#pragma once

#include <gumbo.h>

#include <bitset>
#include <cstdint>
#include <initializer_list>
#include <string_view>

namespace pi_fusion::extract::guard {

using TagSet = std::bitset<GUMBO_TAG_LAST + 1>;

TagSet MakeTagSet(std::initializer_list<GumboTag> tags);

// Gumbo's "special" HTML elements, plus a few: more special elements only keep more open.
const TagSet& Special();
// Start tags that close an open <p> in button scope before they are inserted.
const TagSet& ClosesP();
// Elements inserted and popped at once (void), or never inserted in body content.
const TagSet& NeverOpen();
// Elements whose content the tokenizer reads as text (<noscript> is not: gumbo parses it with
// scripting disabled, as markup). <xmp> and <plaintext> are handled on their own.
const TagSet& RawText();
// The active-formatting elements, which the guard renames.
const TagSet& Formatting();
// Start tags that make the tree builder leave SVG/MathML content (span among them, which is
// what the renamed formatting elements arrive as).
const TagSet& BreakoutOfForeign();
// End tags closed "if in scope" by popping through them.
const TagSet& ClosedInScope();
// HTML scope boundaries: default scope, button scope, list item scope, table scope. The
// SVG/MathML boundaries are checked by the guard itself.
const TagSet& DefaultScope();
const TagSet& ButtonScope();
const TagSet& ListItemScope();
const TagSet& TableScope();
const TagSet& Headings();

// FNV-1a of the ASCII-lowercased name.
uint64_t HashLowercase(std::string_view name);
// The gumbo tag of a name (any case), GUMBO_TAG_UNKNOWN for others.
GumboTag LookupTag(std::string_view name);

}  // namespace pi_fusion::extract::guard
