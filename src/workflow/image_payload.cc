#include "workflow/image_payload.h"

#include <cstdint>

namespace pi_fusion::workflow {
namespace {

int SextetOf(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::optional<std::string> DecodeBase64(std::string_view text) {
  // Padding, when present, completes the last quantum and nothing may follow it.
  size_t end = text.size();
  if (end % 4 == 0) {
    while (end > 0 && end + 2 > text.size() && text[end - 1] == '=') --end;
  }
  const std::string_view body = text.substr(0, end);
  if (body.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(body.size() / 4 * 3 + 2);
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : body) {
    const int sextet = SextetOf(c);
    if (sextet < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(sextet);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace pi_fusion::workflow
