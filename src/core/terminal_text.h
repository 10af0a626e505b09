// Text from a model, a web page or a run directory, made safe to draw or print on a terminal.
//
// A terminal executes what it is sent: ESC[2J clears the screen, OSC 8 turns text into a link to
// anywhere, OSC 52 writes the person's clipboard. Whatever the plugin shows a person (TUI views,
// notices, print mode's stderr and stdout, the CLI) passes through NeutralizeControls() on its way
// out, so such a sequence arrives as visible characters and is never executed. The bytes stored in
// artifacts and handed to the agent stay exact; only the copy meant for a terminal is changed.
//
// What changes (UTF-8 aware; everything else is copied as is):
//   - C0 controls U+0000..U+001F and DEL become their Unicode Control Pictures: ESC is shown as
//     "␛" (U+241B), BEL as "␇", DEL as "␡" (U+2421). In kMultiLine text "\n" and "\t" stay and a
//     "\r\n" line end becomes "\n"; a lone "\r" (which would let later text overwrite a line) is
//     shown as "␍". In kSingleLine text "\n" and "\t" are shown as "␊" and "␉" too.
//   - C1 controls U+0080..U+009F (two bytes in UTF-8: some terminals take U+009B as CSI and
//     U+009D as OSC) have no picture: they are written as the six characters "\u009b".
//   - Bidirectional embedding, override and isolate controls (U+202A..U+202E, U+2066..U+2069) are
//     written as "\u202e" and the like, so no text can make what a person reads differ from the
//     order of the bytes ("Trojan Source"). Right-to-left letters and the LRM/RLM marks, which
//     cannot reorder anything beyond their own neighbourhood, are kept.
//   - Bytes that are not well-formed UTF-8 are written as "\xNN" each: an 8-bit terminal would
//     take a lone 0x9B for CSI.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pi_fusion {

enum class TextShape {
  kMultiLine,   // "\n" and "\t" lay the text out and are kept
  kSingleLine,  // one line (a table cell, a status): "\n" and "\t" are shown, not obeyed
};

// `text` with every terminal control shown as visible characters, as described above.
std::string NeutralizeControls(std::string_view text, TextShape shape = TextShape::kMultiLine);

// Applies NeutralizeControls (kMultiLine) to every string value inside `value`, at any depth.
// Object keys are left as they are: the plugin's own views name their fields.
void NeutralizeStrings(nlohmann::json& value);

}  // namespace pi_fusion
