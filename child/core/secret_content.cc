#include "child/core/secret_content.h"

namespace pi_fusion::child {
namespace {

bool IsArmorWordChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ';
}

bool IsSchemeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

// Where a URL's authority ends: a path, query or fragment, or anything a URL cannot hold.
bool EndsAuthority(char c) {
  return c == '/' || c == '?' || c == '#' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
         c == '"' || c == '\'' || c == '<' || c == '>' || c == '`';
}

}  // namespace

bool HoldsPrivateKey(std::string_view head) {
  if (head.substr(0, 20) == "PuTTY-User-Key-File-") return true;
  static constexpr std::string_view kBegin = "-----BEGIN ";
  static constexpr std::string_view kPrivate = "PRIVATE KEY";
  for (size_t at = head.find(kBegin); at != std::string_view::npos;
       at = head.find(kBegin, at + 1)) {
    // The armor's words: capitals, digits and spaces, then "PRIVATE KEY" ("… KEY BLOCK" too).
    size_t i = at + kBegin.size();
    const size_t limit = std::min(head.size(), i + 64);
    while (i < limit && IsArmorWordChar(head[i])) {
      if (head.substr(i, kPrivate.size()) == kPrivate) return true;
      ++i;
    }
  }
  return false;
}

std::string RedactUrlUserinfo(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;
  for (size_t sep = text.find("://"); sep != std::string_view::npos;
       sep = text.find("://", sep + 3)) {
    if (sep == 0 || !IsSchemeChar(text[sep - 1])) continue;
    const size_t start = sep + 3;
    size_t end = start;
    while (end < text.size() && !EndsAuthority(text[end])) ++end;
    const size_t at = text.rfind('@', end == 0 ? 0 : end - 1);
    if (at == std::string_view::npos || at < start || at >= end) continue;
    out.append(text.substr(copied, start - copied));
    out += "***";
    copied = at;  // the '@' and the host stay
  }
  out.append(text.substr(copied));
  return out;
}

bool LooksLikeGitObject(std::string_view head) {
  if (head.size() < 4) return false;
  const auto u = [&](size_t i) { return static_cast<unsigned char>(head[i]); };
  // zlib: deflate method, and the header's check bits (RFC 1950).
  if ((u(0) & 0x0F) == 8 && (u(0) >> 4) <= 7 && ((u(0) << 8) | u(1)) % 31 == 0) return true;
  for (std::string_view magic :
       {std::string_view("PACK"), std::string_view("\377tOc", 4), std::string_view("RIDX"),
        std::string_view("BITM"), std::string_view("MIDX"), std::string_view("CGPH")}) {
    if (head.substr(0, 4) == magic) return true;
  }
  return false;
}

}  // namespace pi_fusion::child
