// UTF-8 for untrusted text, in one place: a strict decoder step and what every layer builds on it
// (validation, decoding, repair, encoding, cutting at a character boundary).
//
// "Strict" is Unicode's well-formed UTF-8 (Table 3-7): no overlong forms, no encoded surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF. Repair replaces each maximal ill-formed subpart with
// one U+FFFD, the WHATWG Encoding rule that TextDecoder (and so Node and Pi) applies to the same
// bytes. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace pi_fusion {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// One decoder step: what starts at s[i].
struct Utf8Step {
  bool valid = false;
  // The code point of a well-formed sequence; U+FFFD when !valid.
  char32_t code_point = 0xFFFD;
  // Bytes consumed, always >= 1: the well-formed sequence, or the maximal ill-formed subpart (the
  // bytes that replacement turns into one U+FFFD).
  size_t length = 1;
};

// REQUIRES: i < s.size().
Utf8Step DecodeUtf8At(std::string_view s, size_t i);

// True when `s` is well-formed UTF-8.
bool IsValidUtf8(std::string_view s);

// The code points of `s`, or nullopt when `s` is not well-formed UTF-8.
std::optional<std::u32string> DecodeUtf8(std::string_view s);

// `s` with every maximal ill-formed subpart replaced by one U+FFFD; always well-formed.
std::string RepairUtf8(std::string_view s);

// Appends the UTF-8 encoding of `cp`. Surrogates and values above U+10FFFF append U+FFFD.
void AppendUtf8(char32_t cp, std::string* out);

// The largest n' <= n such that s[0, n') does not end inside a multi-byte sequence (s.size() when
// n >= s.size()). REQUIRES: s is well-formed UTF-8 (only continuation bytes are inspected).
size_t Utf8FloorBoundary(std::string_view s, size_t n);

// The longest prefix of `s` that is at most `max_bytes` long and does not split a sequence.
// REQUIRES: s is well-formed UTF-8.
std::string TruncateUtf8(std::string_view s, size_t max_bytes);

}  // namespace pi_fusion
