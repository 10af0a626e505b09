// Answers are Markdown, but models often write code outside fences: `x = a*b*c` or `2*n*m`.
// Pi's Markdown renderer reads a `*` between two word characters as emphasis and eats it, so
// the person would read `x = abc` with `b` in italics. Before a view reaches the TUI, such a `*`
// is backslash-escaped (Markdown then shows it as itself); nothing else of the text changes, and
// code fences, indented code and inline code spans (where a backslash would show) are left alone.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pi_fusion::views {

// `markdown` with every run of `*` that stands between two ASCII letters or digits escaped
// (`a*b*c` -> `a\*b\*c`), outside fenced code, indented code and inline code spans.
std::string KeepIntrawordStars(std::string_view markdown);

// KeepIntrawordStars on every "markdown" and "preview" string in `view` (the answers and
// candidate answers of a run view or the live view), in place.
void KeepIntrawordStarsInView(nlohmann::json& view);

}  // namespace pi_fusion::views
