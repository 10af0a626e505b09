#include "core/utf8.h"

namespace pi_fusion {

Utf8Step DecodeUtf8At(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return {true, lead, 1};
  size_t need = 0;
  char32_t cp = 0;
  // Allowed range of the second byte: narrower after E0 (overlong), ED (surrogates), F0
  // (overlong) and F4 (above U+10FFFF), so each of those is refused at the first byte that shows
  // it, as Unicode's "maximal subpart" requires.
  unsigned char lo = 0x80, hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
    cp = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    cp = lead & 0x0F;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    cp = lead & 0x07;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    return {};  // a continuation byte, C0, C1 or F5..FF: never starts a sequence
  }
  for (size_t k = 1; k <= need; ++k) {
    if (i + k >= s.size()) return {false, 0xFFFD, k};
    const unsigned char c = byte(i + k);
    if (c < lo || c > hi) return {false, 0xFFFD, k};
    cp = (cp << 6) | (c & 0x3F);
    lo = 0x80;
    hi = 0xBF;
  }
  return {true, cp, need + 1};
}

bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const Utf8Step step = DecodeUtf8At(s, i);
    if (!step.valid) return false;
    i += step.length;
  }
  return true;
}

std::optional<std::u32string> DecodeUtf8(std::string_view s) {
  std::u32string out;
  for (size_t i = 0; i < s.size();) {
    const Utf8Step step = DecodeUtf8At(s, i);
    if (!step.valid) return std::nullopt;
    out += step.code_point;
    i += step.length;
  }
  return out;
}

std::string RepairUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t run = 0;  // start of the pending run of well-formed bytes
  for (size_t i = 0; i < s.size();) {
    const Utf8Step step = DecodeUtf8At(s, i);
    if (!step.valid) {
      out.append(s.substr(run, i - run));
      out.append(kReplacementCharacter);
      run = i + step.length;
    }
    i += step.length;
  }
  out.append(s.substr(run));
  return out;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) {
    out->append(kReplacementCharacter);
  } else if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

size_t Utf8FloorBoundary(std::string_view s, size_t n) {
  if (n >= s.size()) return s.size();
  // Step back over continuation bytes to the start of the sequence that would be split.
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return n;
}

std::string TruncateUtf8(std::string_view s, size_t max_bytes) {
  return std::string(s.substr(0, Utf8FloorBoundary(s, max_bytes)));
}

}  // namespace pi_fusion
