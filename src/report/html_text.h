// Text from a model, a page, a file or a run directory made safe to place in the HTML report.
//
// Every such string is data. HtmlText first shows every control character as visible text (core's
// NeutralizeControls: ESC as "␛", bidi overrides as "\u202e", bytes that are not UTF-8 as
// "\xNN"), then escapes the five characters HTML gives meaning to (& < > " '), so the result is
// safe both between tags and inside a quoted attribute value. Nothing from a run is ever placed
// anywhere else (no unquoted attribute, no <script> or <style>, no URL but a checked http(s) one).
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/terminal_text.h"

namespace pi_fusion::report {

// `text` neutralized and escaped, for element content or a double-quoted attribute value.
std::string HtmlText(std::string_view text, TextShape shape = TextShape::kSingleLine);

// `text` with only the five HTML characters escaped. REQUIRES: `text` is the program's own (a
// number, a fixed word), or was already neutralized.
std::string EscapeHtml(std::string_view text);

// "1,234,567": an integer with thousands separators.
std::string GroupedNumber(uint64_t value);

// "$0.0025": a cost in US dollars, four significant decimals at most.
std::string DollarText(double usd);

// "1.25 s", "950 ms", "2 min 5 s".
std::string DurationText(int64_t millis);

}  // namespace pi_fusion::report
