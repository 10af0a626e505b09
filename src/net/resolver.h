// DNS seam for the fetcher: the Resolver interface and the c-ares implementation.
//
// The fetcher resolves every host itself, vets every answer, and pins libcurl to one of them, so
// libcurl never resolves anything. The c-ares resolver sends plain A and AAAA queries (no hosts
// file, no search domains) to the system's resolv.conf servers or to the servers given.
// A Resolver instance is used from one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "net/clock.h"
#include "pi_fusion/status.h"
#include "url/ip_address.h"

namespace pi_fusion::net {

class Resolver {
 public:
  virtual ~Resolver() = default;
  // Every A and AAAA answer for `host` (a canonical DNS name), A answers first.
  // Errors: dns_failure (NXDOMAIN, no answers, server failure), request_timeout (deadline).
  virtual Result<std::vector<url::IpAddress>> Resolve(const std::string& host,
                                                      const Deadline& deadline) = 0;
};

struct AresResolverOptions {
  // "HOST:PORT" or "[IPv6]:PORT" entries (port optional, default 53). Empty (the default): the
  // servers of /etc/resolv.conf.
  std::vector<std::string> servers;
};

// Errors: invalid_argument (a server entry c-ares cannot parse), network_error (c-ares init).
Result<std::unique_ptr<Resolver>> NewAresResolver(const AresResolverOptions& options);

}  // namespace pi_fusion::net
