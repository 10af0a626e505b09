#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "core/utf8.h"

namespace pi_fusion {
namespace {

const std::string kR(kReplacementCharacter);

std::string Bytes(std::initializer_list<unsigned char> bytes) {
  return std::string(bytes.begin(), bytes.end());
}

TEST_CASE("DecodeUtf8At: code point and length of each well-formed form", "[core][utf8]") {
  struct Case {
    std::string bytes;
    char32_t code_point;
  };
  const Case cases[] = {
      {"A", U'A'},
      {std::string("\0", 1), 0},
      {"\x7F", 0x7F},
      {"\xC2\x80", 0x80},              // smallest two-byte
      {"\xC3\xA9", 0xE9},              // é
      {"\xDF\xBF", 0x7FF},             // largest two-byte
      {"\xE0\xA0\x80", 0x800},         // smallest three-byte
      {"\xE2\x82\xAC", 0x20AC},        // €
      {"\xED\x9F\xBF", 0xD7FF},        // just below the surrogates
      {"\xEE\x80\x80", 0xE000},        // just above the surrogates
      {"\xEF\xBF\xBD", 0xFFFD},        // U+FFFD itself is well-formed
      {"\xEF\xBF\xBF", 0xFFFF},        // largest three-byte
      {"\xF0\x90\x80\x80", 0x10000},   // smallest four-byte
      {"\xF0\x9F\x98\x80", 0x1F600},   // 😀
      {"\xF4\x8F\xBF\xBF", 0x10FFFF},  // largest code point
  };
  for (const Case& c : cases) {
    INFO("code point " << static_cast<uint32_t>(c.code_point));
    const Utf8Step step = DecodeUtf8At(c.bytes + "x", 0);
    CHECK(step.valid);
    CHECK(step.code_point == c.code_point);
    CHECK(step.length == c.bytes.size());
    CHECK(IsValidUtf8(c.bytes));
    CHECK(DecodeUtf8(c.bytes) == std::u32string(1, c.code_point));
    std::string encoded;
    AppendUtf8(c.code_point, &encoded);
    CHECK(encoded == c.bytes);
  }
}

TEST_CASE("DecodeUtf8At: an ill-formed start consumes its maximal subpart", "[core][utf8]") {
  struct Case {
    std::string bytes;
    size_t length;
  };
  const Case cases[] = {
      {"\x80", 1},              // stray continuation byte
      {"\xBF", 1},              //
      {"\xC0\xAF", 1},          // C0 and C1 only ever start overlongs
      {"\xC1\xBF", 1},          //
      {"\xE0\x80\xAF", 1},      // overlong three-byte: E0 needs A0..BF next
      {"\xF0\x80\x80\xAF", 1},  // overlong four-byte: F0 needs 90..BF next
      {"\xED\xA0\x80", 1},      // U+D800 encoded
      {"\xED\xBF\xBF", 1},      // U+DFFF encoded
      {"\xF4\x90\x80\x80", 1},  // U+110000
      {"\xF5\x80\x80\x80", 1},  // F5..FF never start a sequence
      {"\xF8\x88\x80\x80\x80", 1},
      {"\xFF", 1},
      {"\xC3", 1},          // truncated at the end
      {"\xE2\x82", 2},      //
      {"\xF0\x9F\x98", 3},  //
      {"\xE6\xBC"
       "x",
       2},  // truncated before an ASCII byte
      {"\xF0\x9F\x98"
       "x",
       3},                  //
      {"\xC3\xC3\xA9", 1},  // truncated before another lead byte
  };
  for (const Case& c : cases) {
    INFO("bytes: " << c.bytes.size() << " lead " << static_cast<int>(c.bytes[0] & 0xFF));
    const Utf8Step step = DecodeUtf8At(c.bytes, 0);
    CHECK_FALSE(step.valid);
    CHECK(step.code_point == 0xFFFD);
    CHECK(step.length == c.length);
    CHECK_FALSE(IsValidUtf8(c.bytes));
    CHECK_FALSE(DecodeUtf8(c.bytes).has_value());
  }
}

// The expected outputs are what TextDecoder (WHATWG Encoding, as in Node and Pi) returns for the
// same bytes: new TextDecoder().decode(Buffer.from([...])).
TEST_CASE("RepairUtf8: one U+FFFD per maximal ill-formed subpart, as TextDecoder", "[core][utf8]") {
  struct Case {
    std::string input, expected;
  };
  const Case cases[] = {
      {"", ""},
      {"plain ascii", "plain ascii"},
      {"caf\xC3\xA9 \xF0\x9F\x98\x80", "caf\xC3\xA9 \xF0\x9F\x98\x80"},
      {std::string("a\0b", 3), std::string("a\0b", 3)},  // NUL is valid UTF-8
      {"\x80", kR},
      {"\xBF\xBF", kR + kR},
      {"a\xC3", "a" + kR},
      {"\xE6\xBC"
       "x",
       kR + "x"},
      {"\xF0\x9F\x98"
       "x",
       kR + "x"},
      {"\xE2\x82", kR},
      {"\xF0\x9F\x98", kR},
      {"\xE2\x82\xAC\xE2", "\xE2\x82\xAC" + kR},
      {"\xC0\xAF", kR + kR},
      {"\xC1\xBF", kR + kR},
      {"\xE0\x80\xAF", kR + kR + kR},
      {"\xF0\x80\x80\xAF", kR + kR + kR + kR},
      {"\xED\xA0\x80", kR + kR + kR},
      {"\xED\xBF\xBF", kR + kR + kR},
      {"\xF4\x90\x80\x80", kR + kR + kR + kR},
      {"\xF5\x80\x80\x80", kR + kR + kR + kR},
      {"\xF8\x88\x80\x80\x80", kR + kR + kR + kR + kR},
      {"\xFE\xFF", kR + kR},
      {"\xC3\xC3\xA9", kR + "\xC3\xA9"},
      {Bytes({0xE1, 0x80, 0xE2, 0xF0, 0x91, 0x92, 0xF1, 0xBF, 0x41}), kR + kR + kR + kR + "A"},
  };
  for (const Case& c : cases) {
    INFO("input bytes: " << c.input.size());
    CHECK(RepairUtf8(c.input) == c.expected);
    CHECK(IsValidUtf8(RepairUtf8(c.input)));
    CHECK(IsValidUtf8(c.input) == (c.input == c.expected));
  }
}

TEST_CASE("RepairUtf8: random bytes always come out well-formed", "[core][utf8]") {
  std::mt19937 rng(15);
  std::uniform_int_distribution<int> byte(0, 255), length(0, 24);
  for (int round = 0; round < 5000; ++round) {
    std::string s;
    for (int n = length(rng); n > 0; --n) s.push_back(static_cast<char>(byte(rng)));
    const std::string repaired = RepairUtf8(s);
    CHECK(IsValidUtf8(repaired));
    CHECK(IsValidUtf8(s) == (repaired == s));
    CHECK(DecodeUtf8(s).has_value() == IsValidUtf8(s));
  }
}

TEST_CASE("AppendUtf8: surrogates and out-of-range values become U+FFFD", "[core][utf8]") {
  std::string out;
  AppendUtf8(0xD800, &out);
  AppendUtf8(0xDFFF, &out);
  AppendUtf8(0x110000, &out);
  CHECK(out == kR + kR + kR);
}

TEST_CASE("Utf8FloorBoundary and TruncateUtf8: never end inside a character", "[core][utf8]") {
  const std::string s = "a\xC3\xA9\xE6\xBC\xA2\xF0\x9F\x98\x80";  // 1 + 2 + 3 + 4 bytes
  const size_t expected[] = {0, 1, 1, 3, 3, 3, 6, 6, 6, 6, 10, 10};
  for (size_t n = 0; n < sizeof(expected) / sizeof(expected[0]); ++n) {
    INFO("n = " << n);
    CHECK(Utf8FloorBoundary(s, n) == expected[n]);
    const std::string cut = TruncateUtf8(s, n);
    CHECK(cut == s.substr(0, expected[n]));
    CHECK(IsValidUtf8(cut));
  }
  CHECK(TruncateUtf8("abc", 5) == "abc");
  CHECK(TruncateUtf8("\xE2\x82\xAC\xE2\x82\xAC", 4) == "\xE2\x82\xAC");
  CHECK(TruncateUtf8("", 0).empty());
}

}  // namespace
}  // namespace pi_fusion
