#include "url/ip_address.h"

#include <vector>

namespace pi_fusion::url {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::vector<std::string_view> Split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      parts.push_back(text.substr(start));
      return parts;
    }
    parts.push_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

// One part of a URL IPv4 host: "0x" hex (may be empty after the prefix, meaning 0, as WHATWG
// says), leading-zero octal, or decimal. Values beyond 2^32 are reported as overflow so that
// "4294967296" is rejected rather than wrapped.
std::optional<uint64_t> ParseIpv4Number(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
  } else if (part.size() >= 2 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  uint64_t value = 0;
  for (char c : part) {
    int digit = HexValue(c);
    if (digit < 0 || digit >= base) return std::nullopt;
    value = value * base + digit;
    if (value > 0xFFFFFFFFull) return uint64_t{1} << 33;  // sticky overflow
  }
  return value;
}

}  // namespace

IpAddress IpAddress::V4(uint32_t host_order) {
  IpAddress a;
  a.family_ = Family::kV4;
  for (int i = 0; i < 4; ++i) a.bytes_[i] = static_cast<uint8_t>(host_order >> (24 - 8 * i));
  return a;
}

IpAddress IpAddress::V6(const std::array<uint8_t, 16>& bytes) {
  IpAddress a;
  a.family_ = Family::kV6;
  a.bytes_ = bytes;
  return a;
}

uint32_t IpAddress::v4() const {
  return (uint32_t{bytes_[0]} << 24) | (uint32_t{bytes_[1]} << 16) | (uint32_t{bytes_[2]} << 8) |
         bytes_[3];
}

uint16_t IpAddress::group(int i) const {
  return static_cast<uint16_t>((bytes_[2 * i] << 8) | bytes_[2 * i + 1]);
}

std::string IpAddress::ToString() const {
  if (is_v4()) {
    return std::to_string(bytes_[0]) + "." + std::to_string(bytes_[1]) + "." +
           std::to_string(bytes_[2]) + "." + std::to_string(bytes_[3]);
  }
  // RFC 5952 section 4.2: compress the longest run (first on ties) of two or more zero groups.
  int best_start = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (group(i) != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && group(j) == 0) ++j;
    if (j - i > best_len && j - i >= 2) best_start = i, best_len = j - i;
    i = j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best_start) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    uint16_t g = group(i);
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      int nibble = (g >> shift) & 0xF;
      if (nibble != 0 || started || shift == 0) {
        out += kHex[nibble];
        started = true;
      }
    }
  }
  return out;
}

bool EndsInNumber(std::string_view host) {
  size_t dot = host.rfind('.');
  std::string_view last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  bool all_digits = true;
  for (char c : last) all_digits = all_digits && IsDigit(c);
  if (all_digits) return true;
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    for (char c : last.substr(2)) {
      if (HexValue(c) < 0) return false;
    }
    return true;
  }
  return false;
}

std::optional<IpAddress> ParseUrlIpv4Host(std::string_view host) {
  std::vector<std::string_view> parts = Split(host, '.');
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();  // one trailing dot
  if (parts.empty() || parts.size() > 4) return std::nullopt;
  std::vector<uint64_t> numbers;
  for (std::string_view part : parts) {
    std::optional<uint64_t> n = ParseIpv4Number(part);
    if (!n) return std::nullopt;
    numbers.push_back(*n);
  }
  for (size_t i = 0; i + 1 < numbers.size(); ++i) {
    if (numbers[i] > 255) return std::nullopt;
  }
  const int spare_bytes = 5 - static_cast<int>(numbers.size());
  if (numbers.back() >= (uint64_t{1} << (8 * spare_bytes))) return std::nullopt;
  uint64_t value = numbers.back();
  for (size_t i = 0; i + 1 < numbers.size(); ++i) value += numbers[i] << (8 * (3 - i));
  return IpAddress::V4(static_cast<uint32_t>(value));
}

std::optional<IpAddress> ParseStrictIpv4(std::string_view text) {
  std::vector<std::string_view> parts = Split(text, '.');
  if (parts.size() != 4) return std::nullopt;
  uint32_t value = 0;
  for (std::string_view part : parts) {
    if (part.empty() || part.size() > 3 || (part.size() > 1 && part[0] == '0')) return std::nullopt;
    uint32_t n = 0;
    for (char c : part) {
      if (!IsDigit(c)) return std::nullopt;
      n = n * 10 + (c - '0');
    }
    if (n > 255) return std::nullopt;
    value = (value << 8) | n;
  }
  return IpAddress::V4(value);
}

std::optional<IpAddress> ParseIpv6(std::string_view text) {
  std::array<uint16_t, 8> groups{};
  int count = 0;
  int compress_at = -1;
  size_t i = 0;
  if (text.substr(0, 2) == "::") {
    compress_at = 0;
    i = 2;
  } else if (!text.empty() && text[0] == ':') {
    return std::nullopt;
  }
  while (i < text.size()) {
    if (count == 8) return std::nullopt;
    // An embedded dotted IPv4 address may end the text, taking two groups.
    size_t end = text.find(':', i);
    std::string_view piece = text.substr(i, end == std::string_view::npos ? end : end - i);
    if (end == std::string_view::npos && piece.find('.') != std::string_view::npos) {
      std::optional<IpAddress> v4 = ParseStrictIpv4(piece);
      if (!v4 || count > 6) return std::nullopt;
      groups[count++] = static_cast<uint16_t>(v4->v4() >> 16);
      groups[count++] = static_cast<uint16_t>(v4->v4() & 0xFFFF);
      i = text.size();
      break;
    }
    if (piece.empty() || piece.size() > 4) return std::nullopt;
    uint16_t value = 0;
    for (char c : piece) {
      int digit = HexValue(c);
      if (digit < 0) return std::nullopt;
      value = static_cast<uint16_t>(value * 16 + digit);
    }
    groups[count++] = value;
    i += piece.size();
    if (i == text.size()) break;
    ++i;  // the ':'
    if (i < text.size() && text[i] == ':') {
      if (compress_at >= 0) return std::nullopt;
      compress_at = count;
      ++i;
    } else if (i == text.size()) {
      return std::nullopt;  // trailing single ':'
    }
  }
  if (compress_at < 0 && count != 8) return std::nullopt;
  if (compress_at >= 0 && count == 8) return std::nullopt;  // "::" must stand for >= 1 group
  std::array<uint8_t, 16> bytes{};
  int zeros = 8 - count;
  int out = 0;
  for (int g = 0; g < count; ++g) {
    if (g == compress_at) out += zeros;
    bytes[2 * out] = static_cast<uint8_t>(groups[g] >> 8);
    bytes[2 * out + 1] = static_cast<uint8_t>(groups[g] & 0xFF);
    ++out;
  }
  return IpAddress::V6(bytes);
}

std::optional<IpAddress> ParseIpAddress(std::string_view text) {
  if (text.find(':') != std::string_view::npos) return ParseIpv6(text);
  return ParseStrictIpv4(text);
}

}  // namespace pi_fusion::url
