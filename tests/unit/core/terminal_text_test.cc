#include <catch2/catch.hpp>

#include <string>

#include "core/terminal_text.h"

namespace pi_fusion {
namespace {

TEST_CASE("NeutralizeControls: the attacks arrive as visible text", "[core][terminal_text]") {
  struct Case {
    std::string in;
    std::string out;
  };
  const Case cases[] = {
      {"\x1b[2J", "␛[2J"},                                                           // clear screen
      {"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "␛]8;;http://x␛\\link␛]8;;␛\\"},  // OSC 8
      {"\x1b]52;c;aGk=\x07", "␛]52;c;aGk=␇"},  // OSC 52 clipboard, ended by BEL
      {"\xC2\x9B[2J", "\\u009b[2J"},           // C1 CSI in UTF-8
      {"\xC2\x9D;52;c;x", "\\u009d;52;c;x"},   // C1 OSC in UTF-8
      {"\x9B[2J", "\\x9b[2J"},                 // a lone 8-bit CSI byte
      {"a\x7F.", "a␡."},                       // DEL
      {std::string("a\0.", 3), "a␀."},         // NUL
      {"x\u202Ecba", "x\\u202ecba"},           // RIGHT-TO-LEFT OVERRIDE
      {"\u2066i\u2069", "\\u2066i\\u2069"},    // LEFT-TO-RIGHT ISOLATE ... POP DIRECTIONAL ISOLATE
  };
  for (const Case& c : cases) {
    INFO(c.in);
    CHECK(NeutralizeControls(c.in) == c.out);
    CHECK(NeutralizeControls(c.in).find('\x1b') == std::string::npos);
  }
}

TEST_CASE("NeutralizeControls: ordinary text is copied as is", "[core][terminal_text]") {
  for (const std::string text :
       {"", "plain ASCII ~!@#$%^&*()", "café € 😀",
        "שלום \u200F",                 // Hebrew letters and the RLM mark stay
        "\u00A0and \u00A9 \u00FF"}) {  // U+00A0, U+00A9, U+00FF: two bytes, but not C1
    CHECK(NeutralizeControls(text) == text);
    CHECK(NeutralizeControls(text, TextShape::kSingleLine) == text);
  }
}

TEST_CASE("NeutralizeControls: line layout by shape", "[core][terminal_text]") {
  CHECK(NeutralizeControls("a\n\tb") == "a\n\tb");
  CHECK(NeutralizeControls("a\r\nb\r\n") == "a\nb\n");
  CHECK(NeutralizeControls("safe\revil") == "safe␍evil");
  CHECK(NeutralizeControls("a\r") == "a␍");
  CHECK(NeutralizeControls("a\n\tb\r\n", TextShape::kSingleLine) == "a␊␉b␍␊");
}

TEST_CASE("NeutralizeControls: ill-formed UTF-8 is shown byte by byte", "[core][terminal_text]") {
  CHECK(NeutralizeControls("a\xC3") == "a\\xc3");                  // truncated sequence
  CHECK(NeutralizeControls("\xC0\xAF") == "\\xc0\\xaf");           // overlong "/"
  CHECK(NeutralizeControls("\xED\xA0\x80") == "\\xed\\xa0\\x80");  // encoded surrogate
}

TEST_CASE("NeutralizeStrings: every string value at any depth, keys kept",
          "[core][terminal_text]") {
  nlohmann::json view = {{"title", "t\x1b[31m"},
                         {"n", 3},
                         {"items", {{{"\x1b[key", "\x1b]52;c;x\x07"}}, "ok", nullptr}}};
  NeutralizeStrings(view);
  CHECK(view["title"] == "t␛[31m");
  CHECK(view["n"] == 3);
  CHECK(view["items"][0]["\x1b[key"] == "␛]52;c;x␇");
  CHECK(view["items"][1] == "ok");
  CHECK(view["items"][2].is_null());
}

}  // namespace
}  // namespace pi_fusion
