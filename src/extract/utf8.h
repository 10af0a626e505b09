// UTF-8 helpers for untrusted text: validation, repair and code point boundaries.
//
// Pure functions over byte strings; thread-safe. "Repair" follows the Unicode/WHATWG practice of
// replacing each maximal ill-formed subpart with one U+FFFD, so overlong forms, surrogates,
// code points above U+10FFFF and truncated sequences all become visible replacement characters.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace pi_fusion::extract {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// Appends the UTF-8 encoding of `cp`. Surrogates and values above U+10FFFF append U+FFFD.
void AppendUtf8(char32_t cp, std::string* out);

// True when `s` is well-formed UTF-8.
bool IsValidUtf8(std::string_view s);

// Returns `s` with every maximal ill-formed subpart replaced by U+FFFD.
std::string RepairUtf8(std::string_view s);

// The largest n' <= n such that s[0, n') does not end inside a multi-byte sequence.
// REQUIRES: s is well-formed UTF-8 (only continuation bytes are inspected).
size_t Utf8FloorBoundary(std::string_view s, size_t n);

}  // namespace pi_fusion::extract
