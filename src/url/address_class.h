// The address classifier: is an IP address a public unicast destination, and if not, why not.
//
// This is the single source of the deny ranges for both source declaration and the fetcher's
// transport checks (every DNS answer, every redirect hop, the connected socket). Every IPv6 form
// that embeds an IPv4 address is refused outright, whatever it embeds: the embedded address is
// often reachable through a translator, and reasoning about which translators exist is exactly the
// kind of cleverness that leaks. Outside the explicitly named IPv6 ranges only 2000::/3 (the
// global unicast space IANA allocates from) is public, and there an ISATAP interface id
// (`…:0:5efe:a.b.c.d`, `…:200:5efe:…`) is refused when the IPv4 address it embeds is not public.
// The Azure platform address 168.63.129.16 (WireServer, DNS, health probes) is its own class: it
// is a public address that every Azure VM reaches as a host-local service.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "url/ip_address.h"

namespace pi_fusion::url {

enum class AddressClass {
  kPublic,
  // Both families.
  kUnspecified,    // 0.0.0.0, ::
  kLoopback,       // 127.0.0.0/8, ::1
  kLinkLocal,      // 169.254.0.0/16, fe80::/10
  kMulticast,      // 224.0.0.0/4, ff00::/8
  kDocumentation,  // 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32, 3fff::/20
  kIetfProtocol,   // 192.0.0.0/24, 2001::/23 (outside the more specific Teredo block)
  kReserved,       // 240.0.0.0/4, IPv6 outside 2000::/3 not otherwise named, 5f00::/16
  // IPv4 only.
  kThisNetwork,    // 0.0.0.0/8
  kPrivate,        // RFC 1918: 10/8, 172.16/12, 192.168/16
  kSharedCgnat,    // 100.64.0.0/10
  kBenchmarking,   // 198.18.0.0/15
  k6to4Relay,      // 192.88.99.0/24
  kBroadcast,      // 255.255.255.255
  kAzurePlatform,  // 168.63.129.16
  // IPv6 only.
  kUniqueLocal,     // fc00::/7
  kSiteLocal,       // fec0::/10
  kDiscardOnly,     // 100::/64
  kIpv4Mapped,      // ::ffff:0:0/96
  kIpv4Compatible,  // ::/96
  kIpv4Translated,  // ::ffff:0:0:0/96
  kNat64,           // 64:ff9b::/96, 64:ff9b:1::/48
  k6to4,            // 2002::/16
  kTeredo,          // 2001::/32
  kIsatap,          // interface id 0:5efe:a.b.c.d (or 100/200/300:5efe) embedding a non-public IPv4
};

AddressClass ClassifyAddress(const IpAddress& address);

// The IPv4 address an ISATAP interface id embeds (the last 32 bits), or nullopt when `address` is
// not IPv6 or its interface id is not of the ISATAP form.
std::optional<IpAddress> IsatapEmbeddedIpv4(const IpAddress& address);

// Short human name used in error messages ("loopback", "private (RFC 1918)", …).
std::string_view AddressClassName(AddressClass c);

}  // namespace pi_fusion::url
