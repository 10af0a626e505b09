// Source policy: which URLs and addresses Fusion may fetch.
//
// Two entry points share one classifier (address_class.h) and one host-name deny list:
//  - CanonicalizeDeclaredSource: admission of a caller-declared `sources[i].url` (the plugin's
//    request normalizer).
//  - the transport checks (CheckTransportUrl, CheckTransportAddress): what the fetcher applies to
//    the initial URL, every DNS answer, every redirect hop and the address it connects to.
// Both refuse the Azure platform address 168.63.129.16 (the original's transport checks left it
// out; here the classifier names it, so a literal, a DNS answer and a redirect target are all
// refused).
// Messages are short, human and carry no field prefix; callers prefix them ("sources[0].url ").
//
// There is no test-only exception: tests that need a public address give themselves one in a
// private network namespace (docs/cli/fetch.md, "Testing").
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"
#include "url/canonical_url.h"
#include "url/ip_address.h"

namespace pi_fusion::url {

// Canonical text of a declared source URL.
// Errors: invalid_url (malformed, or credentials: "must not contain credentials"),
// unsupported_scheme, blocked_address ("must be a public http(s) URL: 127.0.0.1 is loopback").
Result<std::string> CanonicalizeDeclaredSource(std::string_view url);

// Ok when `address` is a public destination; otherwise blocked_address
// naming the address and its class.
Status CheckTransportAddress(const IpAddress& address);

// Why a canonical host name is refused ("is a local host name", "is a cloud metadata host
// name", …), or nullopt when the name may be resolved. REQUIRES: `host` is canonical (lowercase
// ASCII, no trailing dot), as CanonicalUrl::host holds it.
std::optional<std::string> BlockedHostNameReason(std::string_view host);

// Canonicalizes `url` and applies the host-name policy and, for IP-literal hosts,
// CheckTransportAddress. Names still need their DNS answers vetted by the caller.
// Errors: invalid_url, unsupported_scheme, blocked_address.
Result<CanonicalUrl> CheckTransportUrl(std::string_view url);

}  // namespace pi_fusion::url
