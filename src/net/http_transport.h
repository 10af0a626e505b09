// HTTP seam for the fetcher: one GET, pinned to an address the caller vetted.
//
// The libcurl implementation follows no redirects, uses no proxy (environment proxies ignored),
// no netrc, no cookies, no HSTS/alt-svc upgrades, only http and https; it connects only to
// `request.address` (its open-socket callback refuses any other destination) and reports the
// address it actually used; the open-socket callback also re-applies the url layer's address
// policy, so even a vetted address is checked again at connect time. Bodies are decoded (gzip,
// deflate, br, zstd) and counted after decoding; the transfer stops once the cap is exceeded.
// An HttpTransport instance is used from one thread at a time.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "net/clock.h"
#include "pi_fusion/status.h"
#include "url/canonical_url.h"
#include "url/ip_address.h"

namespace pi_fusion::net {

struct HttpRequest {
  url::CanonicalUrl url;
  url::IpAddress address;  // the vetted address to connect to
  size_t max_body_bytes = 0;
  // How long connecting may take (0: until the deadline), so that one address that never answers
  // leaves time to try the host's others.
  std::chrono::milliseconds connect_timeout{0};
};

// The error code of a connection that could not be established (refused, unreachable, connect
// timeout) before any byte was sent: the caller may try the host's next vetted address. It never
// leaves the fetcher, which reports network_error once every address failed.
inline constexpr char kConnectFailed[] = "connect_failed";

struct HttpResponse {
  int status = 0;
  std::string content_type;                         // raw header value, "" when absent
  std::string location;                             // raw Location header, "" when absent
  std::string body;                                 // decoded; at most max_body_bytes
  bool body_over_limit = false;                     // the decoded body exceeded max_body_bytes
  std::optional<url::IpAddress> connected_address;  // the peer the transfer used
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Errors: request_timeout (deadline), kConnectFailed (see above), network_error (a refused
  // destination, TLS, protocol, decoding).
  // An over-limit body is not an error here: the response says so and the fetcher decides.
  virtual Result<HttpResponse> Get(const HttpRequest& request, const Deadline& deadline) = 0;
};

std::unique_ptr<HttpTransport> NewCurlTransport();

}  // namespace pi_fusion::net
