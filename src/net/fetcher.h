// The fetcher: one public http(s) URL in, vetted and capped text out.
//
// For the URL and every redirect hop it canonicalizes and applies the url layer's transport
// policy and resolves the host: if any A/AAAA answer is not public the host is refused whole.
// Otherwise it tries the answers in turn (A first) until one connects, each connection pinned to
// that address, re-checked at connect time, and verified as the peer the transport really used;
// an address that does not connect gets a fair share of the remaining deadline, no more. It follows
// at most kMaxRedirects redirects, accepts only HTML/XHTML, plain text and Markdown, caps the
// decoded body at kMaxResponseBytes, and runs DNS, redirects, transfer and extraction under one
// deadline. Error codes (the spec's): invalid_url, unsupported_scheme, blocked_address,
// dns_failure, redirect_limit, redirect_blocked, response_too_large, unsupported_content_type,
// request_timeout, network_error, extraction_failed, http_error.
// A Fetcher is used from one thread at a time; it does not own its seams.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "net/clock.h"
#include "net/extractor.h"
#include "net/fetch_limits.h"
#include "net/http_transport.h"
#include "net/media_type.h"
#include "net/resolver.h"
#include "pi_fusion/status.h"
#include "url/fetch_contract.h"

namespace pi_fusion::net {

struct FetchOptions {
  std::chrono::milliseconds deadline = kFetchDeadline;
  size_t max_response_bytes = kMaxResponseBytes;
  int max_redirects = kMaxRedirects;
};

// What a successful fetch gives: the page of `pi-fusion fetch`'s answer (url/fetch_contract.h),
// so the fetcher, its JSON writer and the answer's readers share one struct.
using FetchResult = url::FetchedPage;

// What a fetch learned before it ended, kept for failures: the canonical requested URL (empty
// when the input did not canonicalize), the URL of the last response received and its status
// (empty and 0 before any response).
struct FetchTrace {
  std::string url;
  std::string final_url;
  int http_status = 0;
};

class Fetcher {
 public:
  // REQUIRES: the seams outlive the Fetcher.
  Fetcher(Resolver& resolver, HttpTransport& transport, const Clock& clock, Extractor extractor,
          FetchOptions options = {});

  Result<FetchResult> Fetch(std::string_view url, ExtractFormat format);
  // The trace of the last Fetch(), success or failure.
  const FetchTrace& trace() const { return trace_; }

 private:
  Result<std::vector<url::IpAddress>> VetHost(const url::CanonicalUrl& target, bool is_redirect,
                                              const Deadline& deadline);
  Result<HttpResponse> GetFromAny(const url::CanonicalUrl& target,
                                  const std::vector<url::IpAddress>& addresses,
                                  const Deadline& deadline);
  Result<FetchResult> Finish(const url::CanonicalUrl& requested, const url::CanonicalUrl& final,
                             HttpResponse response, ExtractFormat format, const Deadline& deadline);

  Resolver& resolver_;
  HttpTransport& transport_;
  const Clock& clock_;
  Extractor extractor_;
  FetchOptions options_;
  FetchTrace trace_;
};

}  // namespace pi_fusion::net
