// Host parsing for the canonicalizer (internal to src/url).
//
// Order matters and follows the WHATWG URL host parser, because that is how browsers and most
// tooling read hosts: percent-decode, convert non-ASCII labels (IDNA subset, see punycode.h),
// lowercase, then — if the last label is numeric — read the whole host as an IPv4 address.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"
#include "url/ip_address.h"

namespace pi_fusion::url {

struct ParsedHost {
  std::string host;             // canonical name, dotted quad, or IPv6 text without brackets
  std::optional<IpAddress> ip;  // set for IP literals
};

// `raw` is the host part of the authority exactly as written ("[::1]" for IPv6).
// Errors: invalid_url.
Result<ParsedHost> ParseUrlHost(std::string_view raw);

}  // namespace pi_fusion::url
