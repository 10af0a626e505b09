#include "url/url_host.h"

#include "core/error_codes.h"
#include "core/utf8.h"
#include "url/punycode.h"

namespace pi_fusion::url {
namespace {

constexpr size_t kMaxLabel = 63;
constexpr size_t kMaxName = 253;

Status Invalid(std::string detail) {
  return Status::Error(kInvalidUrl, "is not a valid http(s) URL: " + std::move(detail));
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "%31%32%37.0.0.1" is 127.0.0.1 to a WHATWG parser, so hosts are decoded before anything else.
std::optional<std::string> PercentDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    int hi = HexValue(text[i + 1]), lo = HexValue(text[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

bool IsAllowedAsciiHostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

Result<ParsedHost> ParseIpv6Literal(std::string_view inner) {
  if (inner.find('%') != std::string_view::npos) {
    return Invalid("IPv6 zone identifiers are not allowed");
  }
  std::optional<IpAddress> ip = ParseIpv6(inner);
  if (!ip) return Invalid("malformed IPv6 address");
  return ParsedHost{ip->ToString(), ip};
}

// Converts each label of a decoded, non-empty host to ASCII and checks DNS name limits.
Result<std::string> NameToAscii(std::string_view decoded) {
  std::optional<std::u32string> code_points = DecodeUtf8(decoded);
  if (!code_points) return Invalid("host is not valid UTF-8");
  std::string out;
  size_t start = 0;
  while (start <= code_points->size()) {
    size_t dot = code_points->find(U'.', start);
    if (dot == std::u32string::npos) dot = code_points->size();
    std::u32string_view label(code_points->data() + start, dot - start);
    if (label.empty()) return Invalid("host has an empty label");
    std::optional<std::string> ascii = HostLabelToAscii(label);
    if (!ascii) return Invalid("host contains characters that cannot be converted safely");
    for (char c : *ascii) {
      if (!IsAllowedAsciiHostChar(c)) return Invalid("host contains invalid characters");
    }
    if (ascii->size() > kMaxLabel) return Invalid("host label is longer than 63 bytes");
    if (!out.empty()) out += '.';
    out += *ascii;
    start = dot + 1;
  }
  if (out.size() > kMaxName) return Invalid("host name is longer than 253 bytes");
  return out;
}

}  // namespace

Result<ParsedHost> ParseUrlHost(std::string_view raw) {
  if (raw.empty()) return Invalid("missing host");
  if (raw.front() == '[') {
    if (raw.back() != ']') return Invalid("malformed IPv6 address");
    return ParseIpv6Literal(raw.substr(1, raw.size() - 2));
  }
  std::optional<std::string> decoded = PercentDecode(raw);
  if (!decoded) return Invalid("malformed percent escape in host");
  if (decoded->empty()) return Invalid("missing host");
  // One trailing dot names the same host fully qualified; the canonical form drops it.
  if (decoded->size() > 1 && decoded->back() == '.') decoded->pop_back();
  for (char c : *decoded) {
    if (c == '[' || c == ']' || c == ':') return Invalid("malformed host");
  }
  Result<std::string> ascii = NameToAscii(*decoded);
  if (!ascii.ok()) return ascii.status();
  if (EndsInNumber(*ascii)) {
    std::optional<IpAddress> ip = ParseUrlIpv4Host(*ascii);
    if (!ip) return Invalid("host looks like an IPv4 address but is not a valid one");
    return ParsedHost{ip->ToString(), ip};
  }
  return ParsedHost{std::move(ascii).value(), std::nullopt};
}

}  // namespace pi_fusion::url
