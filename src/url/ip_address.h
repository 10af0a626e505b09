// IP addresses as values, and the parsers that turn host text into them.
//
// Two kinds of parsing live here on purpose:
//  - ParseUrlIpv4Host accepts every numeric IPv4 form that URL parsers (WHATWG) and libcurl accept
//    (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`, …), because an attacker picks whichever form
//    the downstream parser understands; we must read it the same way and then only ever emit
//    dotted-quad.
//  - ParseIpAddress is strict (dotted-decimal IPv4 or RFC 4291 IPv6): for resolver answers and the
//    address libcurl reports it connected to.
// Pure functions on values; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pi_fusion::url {

class IpAddress {
 public:
  enum class Family { kV4, kV6 };

  IpAddress() = default;  // 0.0.0.0
  static IpAddress V4(uint32_t host_order);
  static IpAddress V6(const std::array<uint8_t, 16>& bytes);

  Family family() const { return family_; }
  bool is_v4() const { return family_ == Family::kV4; }
  // REQUIRES: is_v4()
  uint32_t v4() const;
  // Network-order bytes; an IPv4 address uses the first four.
  const std::array<uint8_t, 16>& bytes() const { return bytes_; }
  // 16-bit group `i` (0..7) of an IPv6 address. REQUIRES: !is_v4()
  uint16_t group(int i) const;

  // Dotted-quad, or RFC 5952 text (lowercase, no leading zeros, longest zero run as "::",
  // never dotted IPv4 notation) without brackets.
  std::string ToString() const;

  bool operator==(const IpAddress&) const = default;

 private:
  Family family_ = Family::kV4;
  std::array<uint8_t, 16> bytes_{};
};

// True when `host` (already lowercased, trailing dot removed) must be read as an IPv4 address:
// its last dot-separated label is a decimal or 0x-hex number (the WHATWG "ends in a number" rule).
bool EndsInNumber(std::string_view host);

// The WHATWG/inet_aton reading of a numeric host: 1 to 4 parts, each decimal, octal (leading 0)
// or hex (0x); every part but the last < 256, the last fills the remaining bytes.
// Returns nullopt if the text is not such a number (callers treat that as a malformed host
// when EndsInNumber() is true).
std::optional<IpAddress> ParseUrlIpv4Host(std::string_view host);

// Strict dotted-decimal IPv4 ("a.b.c.d", no leading zeros).
std::optional<IpAddress> ParseStrictIpv4(std::string_view text);
// RFC 4291 IPv6 text, optionally ending in strict dotted IPv4; no brackets, no zone id.
std::optional<IpAddress> ParseIpv6(std::string_view text);
// ParseStrictIpv4 or ParseIpv6.
std::optional<IpAddress> ParseIpAddress(std::string_view text);

}  // namespace pi_fusion::url
