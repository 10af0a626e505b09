// Model text placed into a host-rendered Markdown document (the validation report) must read as
// text inside the section the host put it in: it can never open a heading, a code fence that
// swallows later sections, an HTML block, or hide itself in terminal control sequences.
//
// Both functions first make the text safe to print: invalid UTF-8 becomes U+FFFD; CR LF and CR
// become LF; C0 controls other than LF and tab, DEL, C1 controls and the bidirectional override
// and isolate controls (U+202A–U+202E, U+2066–U+2069) are removed; every `<` is escaped as `\<`
// so no raw HTML survives.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion::workflow {

// One line of text for a heading, a list item or a bullet's value: every run of whitespace
// (line breaks, U+2028 and U+2029 included) becomes one space, the ends are trimmed, and a
// leading character that could start a Markdown block (ASCII punctuation, or the "1." / "1)" of
// an ordered list) is backslash-escaped. May return "".
std::string SanitizeInlineMarkdown(std::string_view text);

// Paragraph text kept inside the current section: lines keep their breaks, but each line's
// leading whitespace is removed (no indented code), runs of blank lines collapse to one, the
// ends are trimmed, and a line whose content (after any block quote and list markers, so
// `> # x` counts) could open a heading, a fence or a table row (first character `#`, `` ` ``,
// `~`, `=` or `|`) or consists only of `-`, `*`, `_` and spaces (a setext underline or a
// thematic break) gets a backslash before that content. May return "".
std::string SanitizeBlockMarkdown(std::string_view text);

}  // namespace pi_fusion::workflow
