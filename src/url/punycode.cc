#include "url/punycode.h"

#include <cstdint>

namespace pi_fusion::url {
namespace {

// RFC 3492 section 5 parameters.
constexpr uint32_t kBase = 36, kTMin = 1, kTMax = 26, kSkew = 38, kDamp = 700;
constexpr uint32_t kInitialBias = 72, kInitialN = 128;

char EncodeDigit(uint32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); }

uint32_t Adapt(uint32_t delta, uint32_t num_points, bool first_time) {
  delta = first_time ? delta / kDamp : delta / 2;
  delta += delta / num_points;
  uint32_t k = 0;
  while (delta > ((kBase - kTMin) * kTMax) / 2) {
    delta /= kBase - kTMin;
    k += kBase;
  }
  return k + (kBase - kTMin + 1) * delta / (delta + kSkew);
}

// Lowercase form of an allowlisted code point, or 0 when the code point is not supported.
char32_t LowercaseAllowed(char32_t c) {
  if (c < 0x80) {
    if (c >= 'A' && c <= 'Z') return c + 0x20;
    return c;  // the ASCII rules are the caller's
  }
  // Latin-1 Supplement letters (not the multiplication/division signs).
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
  if (c >= 0xDF && c <= 0xFF && c != 0xF7) return c;
  // Latin Extended-A, minus the ones IDNA maps to several characters or disallows
  // (İ, Ĳ/ĳ, Ŀ/ŀ, ŉ, ſ).
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130 || c == 0x132 || c == 0x133 || c == 0x13F || c == 0x140 || c == 0x149 ||
        c == 0x17F) {
      return 0;
    }
    if (c == 0x131 || c == 0x138) return c;  // ı and ĸ have no case partner
    if (c == 0x178) return 0xFF;             // Ÿ -> ÿ
    bool even_upper = (c <= 0x137) || (c >= 0x14A && c <= 0x177);
    bool is_upper = even_upper ? (c % 2 == 0) : (c % 2 == 1);
    return is_upper ? c + 1 : c;
  }
  // Greek letters with and without tonos.
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 0x25;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 0x3F;
  if ((c >= 0x391 && c <= 0x3A1) || (c >= 0x3A3 && c <= 0x3AB)) return c + 0x20;
  if (c == 0x390 || (c >= 0x3AC && c <= 0x3CE)) return c;
  // Basic Cyrillic.
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;
  if (c >= 0x430 && c <= 0x45F) return c;
  // Caseless scripts whose text is NFC as written.
  if (c >= 0x3041 && c <= 0x3096) return c;                   // Hiragana
  if ((c >= 0x30A1 && c <= 0x30FA) || c == 0x30FC) return c;  // Katakana
  if (c >= 0x4E00 && c <= 0x9FFF) return c;                   // CJK unified ideographs
  if (c >= 0xAC00 && c <= 0xD7A3) return c;                   // Hangul syllables
  return 0;
}

}  // namespace

std::optional<std::string> PunycodeEncode(std::u32string_view input) {
  std::string out;
  for (char32_t c : input) {
    if (c < 0x80) out += static_cast<char>(c);
  }
  const uint32_t basic = static_cast<uint32_t>(out.size());
  uint32_t handled = basic;
  if (basic > 0) out += '-';
  uint32_t n = kInitialN, delta = 0, bias = kInitialBias;
  while (handled < input.size()) {
    uint32_t m = UINT32_MAX;
    for (char32_t c : input) {
      if (c >= n && c < m) m = c;
    }
    if (m - n > (UINT32_MAX - delta) / (handled + 1)) return std::nullopt;
    delta += (m - n) * (handled + 1);
    n = m;
    for (char32_t c : input) {
      if (c < n && ++delta == 0) return std::nullopt;
      if (c != n) continue;
      uint32_t q = delta;
      for (uint32_t k = kBase;; k += kBase) {
        uint32_t t = k <= bias ? kTMin : (k >= bias + kTMax ? kTMax : k - bias);
        if (q < t) break;
        out += EncodeDigit(t + (q - t) % (kBase - t));
        q = (q - t) / (kBase - t);
      }
      out += EncodeDigit(q);
      bias = Adapt(delta, handled + 1, handled == basic);
      delta = 0;
      ++handled;
    }
    ++delta;
    ++n;
  }
  return out;
}

std::optional<std::string> HostLabelToAscii(std::u32string_view label) {
  std::u32string lowered;
  bool ascii = true;
  for (char32_t c : label) {
    char32_t lower = LowercaseAllowed(c);
    if (lower == 0) return std::nullopt;
    ascii = ascii && lower < 0x80;
    lowered += lower;
  }
  if (ascii) return std::string(lowered.begin(), lowered.end());
  std::optional<std::string> encoded = PunycodeEncode(lowered);
  if (!encoded) return std::nullopt;
  return "xn--" + *encoded;
}

}  // namespace pi_fusion::url
