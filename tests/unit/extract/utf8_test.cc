#include <catch2/catch.hpp>

#include <string>

#include "extract/utf8.h"

namespace pi_fusion::extract {
namespace {

TEST_CASE("RepairUtf8: one U+FFFD per maximal ill-formed subpart", "[extract][utf8]") {
  const std::string r(kReplacementCharacter);
  struct Case {
    std::string input, expected;
  };
  const Case cases[] = {
      {"plain ascii", "plain ascii"},
      {"caf\xC3\xA9 \xF0\x9F\x98\x80", "caf\xC3\xA9 \xF0\x9F\x98\x80"},
      {"\x80", r},          // lone continuation byte
      {"\xBF\xBF", r + r},  // each stray continuation byte
      {"a\xC3", "a" + r},   // truncated at the end
      {"\xE6\xBC"
       "x",
       r + "x"},  // truncated 3-byte sequence: one replacement
      {"\xF0\x9F\x98"
       "x",
       r + "x"},                            // truncated 4-byte sequence: one replacement
      {"\xC0\xAF", r + r},                  // overlong two-byte: C0 is never valid
      {"\xE0\x80\xAF", r + r + r},          // overlong three-byte: second byte out of range
      {"\xED\xA0\x80", r + r + r},          // UTF-16 surrogate
      {"\xF4\x90\x80\x80", r + r + r + r},  // above U+10FFFF
      {"\xF8\x88\x80\x80\x80", r + r + r + r + r},
      {"\xFE\xFF", r + r},
      {std::string("a\0b", 3), std::string("a\0b", 3)},  // NUL is valid UTF-8
  };
  for (const Case& c : cases) {
    INFO("input bytes: " << c.input.size());
    CHECK(RepairUtf8(c.input) == c.expected);
    CHECK(IsValidUtf8(RepairUtf8(c.input)));
    CHECK(IsValidUtf8(c.input) == (c.input == c.expected));
  }
}

TEST_CASE("Utf8FloorBoundary: never ends inside a character", "[extract][utf8]") {
  const std::string s = "a\xC3\xA9\xE6\xBC\xA2\xF0\x9F\x98\x80";  // 1 + 2 + 3 + 4 bytes
  const size_t expected[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10};
  for (size_t n = 0; n < sizeof(expected) / sizeof(expected[0]); ++n) {
    INFO("n = " << n);
    CHECK(Utf8FloorBoundary(s, n) == expected[n]);
  }
}

TEST_CASE("AppendUtf8: encodes code points, replaces surrogates and out-of-range values",
          "[extract][utf8]") {
  std::string out;
  for (const char32_t cp : {U'A', U'\u00E9', U'\u20AC', U'\U0001F600'}) AppendUtf8(cp, &out);
  CHECK(out == "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  out.clear();
  AppendUtf8(0xD800, &out);
  AppendUtf8(0x110000, &out);
  CHECK(out == std::string(kReplacementCharacter) + std::string(kReplacementCharacter));
}

}  // namespace
}  // namespace pi_fusion::extract
