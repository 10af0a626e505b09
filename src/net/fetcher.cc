#include "net/fetcher.h"

#include <utility>

#include "core/utf8.h"
#include "pi_fusion/sha256.h"
#include "url/source_policy.h"

namespace pi_fusion::net {
namespace {

Status Error(const char* code, std::string message) {
  return Status::Error(code, std::move(message));
}

// A policy refusal of a redirect target is redirect_blocked whatever the underlying reason
// (blocked address, non-http(s) scheme, credentials, malformed Location).
Status AsRedirectBlocked(const Status& s) {
  return Error("redirect_blocked", "redirect target " + s.message());
}

Status WithPrefix(const Status& s, const std::string& prefix) {
  return Status::Error(s.code(), prefix + s.message());
}

bool IsRedirectStatus(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

}  // namespace

Fetcher::Fetcher(Resolver& resolver, HttpTransport& transport, const Clock& clock,
                 Extractor extractor, FetchOptions options)
    : resolver_(resolver),
      transport_(transport),
      clock_(clock),
      extractor_(std::move(extractor)),
      options_(options) {}

Result<std::vector<url::IpAddress>> Fetcher::VetHost(const url::CanonicalUrl& target,
                                                     bool is_redirect, const Deadline& deadline) {
  if (target.ip) return std::vector{*target.ip};  // literal: CheckTransportUrl already vetted it
  Result<std::vector<url::IpAddress>> answers = resolver_.Resolve(target.host, deadline);
  if (!answers.ok()) return answers.status();
  if (answers->empty()) return Error("dns_failure", target.host + " has no A or AAAA records");
  // Any blocked answer refuses the host: a name that also points inside is not a public name.
  for (const url::IpAddress& address : *answers) {
    Status s = url::CheckTransportAddress(address);
    if (s.ok()) continue;
    std::string message = "host " + target.host + " resolves to a blocked address: " + s.message();
    return is_redirect ? Error("redirect_blocked", "redirect target " + message)
                       : Error("blocked_address", "url " + message);
  }
  return answers;
}

Result<HttpResponse> Fetcher::GetFromAny(const url::CanonicalUrl& target,
                                         const std::vector<url::IpAddress>& addresses,
                                         const Deadline& deadline) {
  Status last_failure;
  for (size_t i = 0; i < addresses.size(); ++i) {
    if (deadline.Expired()) return Error("request_timeout", "fetch deadline exceeded");
    const url::IpAddress& address = addresses[i];
    HttpRequest request{target, address, options_.max_response_bytes};
    // Each address left gets an equal share of the time left to connect; the last gets it all.
    request.connect_timeout = deadline.Remaining() / static_cast<long>(addresses.size() - i);
    Result<HttpResponse> response = transport_.Get(request, deadline);
    if (!response.ok() && response.status().code() == kConnectFailed) {
      last_failure = response.status();
      continue;
    }
    if (!response.ok()) return response.status();
    const std::optional<url::IpAddress>& peer = response->connected_address;
    if (!peer || !(*peer == address) || !url::CheckTransportAddress(*peer).ok()) {
      return Error("network_error",
                   "connection did not use the vetted address " + address.ToString());
    }
    return response;
  }
  std::string which = addresses.size() == 1 ? addresses.front().ToString()
                                            : "any of the " + std::to_string(addresses.size()) +
                                                  " addresses of " + target.host;
  return Error("network_error", "could not connect to " + which + ": " + last_failure.message());
}

Result<FetchResult> Fetcher::Fetch(std::string_view input, ExtractFormat format) {
  const Deadline deadline(clock_, options_.deadline);
  trace_ = FetchTrace{};
  Result<url::CanonicalUrl> requested = url::CheckTransportUrl(input);
  if (!requested.ok()) return WithPrefix(requested.status(), "url ");
  trace_.url = requested->Text();
  url::CanonicalUrl current = *requested;
  for (int redirects = 0;; ++redirects) {
    Result<std::vector<url::IpAddress>> addresses = VetHost(current, redirects > 0, deadline);
    if (!addresses.ok()) return addresses.status();
    Result<HttpResponse> response = GetFromAny(current, *addresses, deadline);
    if (!response.ok()) return response.status();
    trace_.final_url = current.Text();
    trace_.http_status = response->status;
    if (!IsRedirectStatus(response->status) || response->location.empty()) {
      return Finish(*requested, current, std::move(response).value(), format, deadline);
    }
    if (redirects == options_.max_redirects) {
      return Error("redirect_limit",
                   "more than " + std::to_string(options_.max_redirects) + " redirects");
    }
    Result<std::string> target = url::ResolveReference(current, response->location);
    if (!target.ok()) return AsRedirectBlocked(target.status());
    Result<url::CanonicalUrl> next = url::CheckTransportUrl(*target);
    if (!next.ok()) return AsRedirectBlocked(next.status());
    current = std::move(next).value();
  }
}

Result<FetchResult> Fetcher::Finish(const url::CanonicalUrl& requested,
                                    const url::CanonicalUrl& final, HttpResponse response,
                                    ExtractFormat format, const Deadline& deadline) {
  if (response.status >= 400) {
    return Error("http_error", "HTTP status " + std::to_string(response.status));
  }
  if (response.status < 200 || response.status >= 300) {
    return Error("http_error", "unexpected HTTP status " + std::to_string(response.status));
  }
  std::string media_type = MediaType(response.content_type);
  if (!IsAcceptedMediaType(media_type)) {
    return Error("unsupported_content_type", "content type \"" +
                                                 (media_type.empty() ? "none" : media_type) +
                                                 "\" is not HTML, XHTML, plain text or Markdown");
  }
  if (response.body_over_limit) {
    return Error("response_too_large",
                 "response body exceeds " + std::to_string(options_.max_response_bytes) + " bytes");
  }
  Result<Extracted> extracted = extractor_(response.body, response.content_type, format);
  if (!extracted.ok()) return extracted.status();
  // Extraction runs in this thread and cannot be interrupted; its time still counts.
  if (deadline.Expired()) return Error("request_timeout", "fetch deadline exceeded");
  FetchResult result;
  result.url = requested.Text();
  result.final_url = final.Text();
  result.http_status = response.status;
  result.content_type = media_type;
  result.response_bytes = response.body.size();
  result.content_sha256 = Sha256Ref(response.body);
  result.text = std::move(extracted->text);
  result.truncated = extracted->truncated;
  if (result.text.size() > kMaxExtractedTextBytes) {  // the cap holds whatever the extractor does
    result.text.resize(Utf8FloorBoundary(result.text, kMaxExtractedTextBytes));
    result.truncated = true;
  }
  result.extracted_bytes = result.text.size();
  return result;
}

}  // namespace pi_fusion::net
