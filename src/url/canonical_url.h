// The URL canonicalizer: absolute http(s) URLs only, parsed into parts and printed back in one
// canonical text form, so that equal targets compare equal and downstream parsers (libcurl, the
// resolver, a remote server) cannot read the host differently from how we vetted it.
//
// Canonical form:
//  - scheme and host lowercase; fragment removed; default port (80 for http, 443 for https)
//    dropped; empty path becomes "/"; "." and ".." segments removed (also when percent-encoded);
//  - host: a lowercase DNS name (non-ASCII labels as "xn--" Punycode, one trailing dot removed),
//    a dotted-quad IPv4 address (every numeric form is read as the address it denotes), or a
//    bracketed RFC 5952 IPv6 address;
//  - percent escapes use uppercase hex; escapes of unreserved characters are decoded; space,
//    `"<>\^`{|}` and non-ASCII bytes in path and query are percent-encoded.
// Refused (`invalid_url`): relative or malformed URLs, any userinfo (credentials, even an empty
// "@"), control characters, malformed percent escapes, invalid UTF-8, hosts with characters we
// cannot convert safely, IPv6 zone ids, bad ports. Other schemes: `unsupported_scheme`.
// This layer says nothing about whether the target is public; see source_policy.h.
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"
#include "url/ip_address.h"

namespace pi_fusion::url {

struct CanonicalUrl {
  std::string scheme;  // "http" or "https"
  // Lowercase DNS name, dotted-quad IPv4, or IPv6 text without brackets.
  std::string host;
  std::optional<IpAddress> ip;       // set when the host is an IP literal
  int port = 0;                      // the effective port (80/443 when none was given)
  std::string path;                  // starts with "/"
  std::optional<std::string> query;  // without the "?"

  // The host as it appears in a URL ("[::1]" for IPv6).
  std::string HostForUrl() const;
  // scheme://host[:port] with the default port omitted.
  std::string Origin() const;
  // The canonical URL text.
  std::string Text() const;
};

// Errors: invalid_url, unsupported_scheme (message without a field prefix).
Result<CanonicalUrl> ParseCanonicalUrl(std::string_view input);

// Resolves a redirect `Location` value against `base` (RFC 3986 section 5.2) into an absolute URL
// text that ParseCanonicalUrl then judges. Absolute references of any scheme are returned as they
// are, so the caller can refuse them with the scheme's own error.
Result<std::string> ResolveReference(const CanonicalUrl& base, std::string_view reference);

}  // namespace pi_fusion::url
