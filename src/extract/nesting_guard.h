// The nesting guard: a rewrite of HTML before gumbo parses it, so that hostile markup can make the
// parse neither slow nor large. Measured on gumbo 0.10.1 (see docs/benchmarks.md):
//  - nesting is quadratic: 10,000 nested <div> take ~3 s, 100,000 take minutes, because every
//    start tag scans the stack of open elements;
//  - the active-formatting machinery (reconstruction, adoption agency) clones <b>, <i>, <a>, ...
//    into every later paragraph: 157 KB of crafted input built a 1 GB tree in 11 s.
//
// So the guard
//  - renames the formatting elements (a, b, big, code, em, font, i, nobr, s, small, strike,
//    strong, tt, u) to <span data-pf-tag="NAME" ...>: spans nest like ordinary elements and are
//    never cloned. The renderer maps them back (kFormattingTagAttribute). A misnested <b> is then
//    closed by the nearest block end rather than reconstructed, which text extraction can afford;
//  - follows the stack of open elements with a conservative model of the HTML tree builder (it
//    may think the tree deeper than gumbo will build it, never shallower) and drops start tags,
//    with their end tags, that would nest deeper than max_depth: deeper content becomes text;
//  - removes the content of raw-text elements (script, style, title, textarea, iframe, noembed,
//    noframes), and <template> and <select> elements whole, all of which the renderer drops
//    anyway, and turns <xmp> and <plaintext> into <pre> with escaped text. No markup can then
//    hide from the model in text that gumbo might parse after all; templates and selects have
//    insertion modes of their own, in which gumbo 0.10.1 also has an assertion failure that
//    aborts the process;
//  - cuts the document after max_elements start tags.
// Pure function; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pi_fusion::extract {

inline constexpr char kFormattingTagAttribute[] = "data-pf-tag";

struct GuardLimits {
  size_t max_depth = 256;         // open elements, as modelled
  size_t max_elements = 250'000;  // start tags kept before the document is cut
};

struct GuardedHtml {
  std::string html;         // the rewritten document, for gumbo
  size_t dropped_tags = 0;  // start tags removed for depth
  bool cut = false;         // true when the document was cut after max_elements start tags
};

// REQUIRES: html is well-formed UTF-8 (the guard only inspects ASCII).
GuardedHtml GuardNesting(std::string_view html, const GuardLimits& limits);

}  // namespace pi_fusion::extract
