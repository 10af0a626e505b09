#include "url/address_class.h"

#include <array>

namespace pi_fusion::url {
namespace {

struct V4Range {
  uint32_t network;
  int prefix;
  AddressClass cls;
};

// Most specific first: the first match wins.
constexpr std::array<V4Range, 18> kV4Ranges = {{
    {0x00000000, 32, AddressClass::kUnspecified},
    {0xFFFFFFFF, 32, AddressClass::kBroadcast},
    {0xA83F8110, 32, AddressClass::kAzurePlatform},
    {0x00000000, 8, AddressClass::kThisNetwork},
    {0x0A000000, 8, AddressClass::kPrivate},
    {0x64400000, 10, AddressClass::kSharedCgnat},
    {0x7F000000, 8, AddressClass::kLoopback},
    {0xA9FE0000, 16, AddressClass::kLinkLocal},
    {0xAC100000, 12, AddressClass::kPrivate},
    {0xC0000000, 24, AddressClass::kIetfProtocol},
    {0xC0000200, 24, AddressClass::kDocumentation},
    {0xC0586300, 24, AddressClass::k6to4Relay},
    {0xC0A80000, 16, AddressClass::kPrivate},
    {0xC6120000, 15, AddressClass::kBenchmarking},
    {0xC6336400, 24, AddressClass::kDocumentation},
    {0xCB007100, 24, AddressClass::kDocumentation},
    {0xE0000000, 4, AddressClass::kMulticast},
    {0xF0000000, 4, AddressClass::kReserved},
}};

struct V6Range {
  std::array<uint8_t, 16> network;
  int prefix;
  AddressClass cls;
};

bool InV4(uint32_t address, uint32_t network, int prefix) {
  uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
  return (address & mask) == (network & mask);
}

bool InV6(const std::array<uint8_t, 16>& a, const std::array<uint8_t, 16>& network, int prefix) {
  for (int bit = 0; bit < prefix; bit += 8) {
    int bits = prefix - bit >= 8 ? 8 : prefix - bit;
    uint8_t mask = static_cast<uint8_t>(0xFF << (8 - bits));
    if ((a[bit / 8] & mask) != (network[bit / 8] & mask)) return false;
  }
  return true;
}

constexpr std::array<uint8_t, 16> B(std::initializer_list<uint8_t> prefix) {
  std::array<uint8_t, 16> out{};
  size_t i = 0;
  for (uint8_t b : prefix) out[i++] = b;
  return out;
}

// Most specific first. ::/128 and ::1/128 precede IPv4-compatible ::/96 which contains them.
const std::array<V6Range, 19> kV6Ranges = {{
    {B({}), 128, AddressClass::kUnspecified},
    {B({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}), 128, AddressClass::kLoopback},
    {B({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF}), 96, AddressClass::kIpv4Mapped},
    {B({0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0}), 96, AddressClass::kIpv4Translated},
    {B({}), 96, AddressClass::kIpv4Compatible},
    {B({0x00, 0x64, 0xFF, 0x9B}), 96, AddressClass::kNat64},
    {B({0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01}), 48, AddressClass::kNat64},
    {B({0x01, 0x00}), 64, AddressClass::kDiscardOnly},
    {B({0x20, 0x01, 0x00, 0x00}), 32, AddressClass::kTeredo},
    {B({0x20, 0x01, 0x0D, 0xB8}), 32, AddressClass::kDocumentation},
    {B({0x20, 0x01}), 23, AddressClass::kIetfProtocol},
    {B({0x20, 0x02}), 16, AddressClass::k6to4},
    {B({0x3F, 0xFF}), 20, AddressClass::kDocumentation},
    {B({0x5F, 0x00}), 16, AddressClass::kReserved},
    {B({0xFC}), 7, AddressClass::kUniqueLocal},
    {B({0xFE, 0x80}), 10, AddressClass::kLinkLocal},
    {B({0xFE, 0xC0}), 10, AddressClass::kSiteLocal},
    {B({0xFF}), 8, AddressClass::kMulticast},
    {B({0x20}), 3, AddressClass::kPublic},
}};

}  // namespace

std::optional<IpAddress> IsatapEmbeddedIpv4(const IpAddress& address) {
  if (address.is_v4()) return std::nullopt;
  // RFC 5214: the interface id is 0000:5efe or 0200:5efe (u bit) followed by the IPv4 address;
  // the g bit (0100, 0300) is accepted too, as Windows does.
  if ((address.group(4) & 0xFCFF) != 0 || address.group(5) != 0x5EFE) return std::nullopt;
  return IpAddress::V4(uint32_t{address.group(6)} << 16 | address.group(7));
}

AddressClass ClassifyAddress(const IpAddress& address) {
  if (address.is_v4()) {
    for (const V4Range& r : kV4Ranges) {
      if (InV4(address.v4(), r.network, r.prefix)) return r.cls;
    }
    return AddressClass::kPublic;
  }
  for (const V6Range& r : kV6Ranges) {
    if (!InV6(address.bytes(), r.network, r.prefix)) continue;
    if (r.cls != AddressClass::kPublic) return r.cls;
    std::optional<IpAddress> isatap = IsatapEmbeddedIpv4(address);
    if (isatap && ClassifyAddress(*isatap) != AddressClass::kPublic) return AddressClass::kIsatap;
    return AddressClass::kPublic;
  }
  return AddressClass::kReserved;  // outside 2000::/3
}

std::string_view AddressClassName(AddressClass c) {
  switch (c) {
    case AddressClass::kPublic:
      return "public";
    case AddressClass::kUnspecified:
      return "unspecified";
    case AddressClass::kLoopback:
      return "loopback";
    case AddressClass::kLinkLocal:
      return "link-local";
    case AddressClass::kMulticast:
      return "multicast";
    case AddressClass::kDocumentation:
      return "reserved for documentation";
    case AddressClass::kIetfProtocol:
      return "reserved for IETF protocol assignments";
    case AddressClass::kReserved:
      return "reserved";
    case AddressClass::kThisNetwork:
      return "a \"this network\" address (0.0.0.0/8)";
    case AddressClass::kPrivate:
      return "private (RFC 1918)";
    case AddressClass::kSharedCgnat:
      return "shared address space (CGNAT, 100.64.0.0/10)";
    case AddressClass::kBenchmarking:
      return "reserved for benchmarking";
    case AddressClass::k6to4Relay:
      return "the deprecated 6to4 relay anycast range";
    case AddressClass::kBroadcast:
      return "broadcast";
    case AddressClass::kAzurePlatform:
      return "the Azure platform service address (WireServer)";
    case AddressClass::kUniqueLocal:
      return "unique local (fc00::/7)";
    case AddressClass::kSiteLocal:
      return "site-local (fec0::/10)";
    case AddressClass::kDiscardOnly:
      return "discard-only (100::/64)";
    case AddressClass::kIpv4Mapped:
      return "IPv4-mapped IPv6";
    case AddressClass::kIpv4Compatible:
      return "IPv4-compatible IPv6";
    case AddressClass::kIpv4Translated:
      return "IPv4-translated IPv6";
    case AddressClass::kNat64:
      return "NAT64 (embeds IPv4)";
    case AddressClass::k6to4:
      return "6to4 (embeds IPv4)";
    case AddressClass::kTeredo:
      return "Teredo (embeds IPv4)";
    case AddressClass::kIsatap:
      return "ISATAP embedding a non-public IPv4 address";
  }
  return "unknown";
}

}  // namespace pi_fusion::url
