#include "url/source_policy.h"

#include <array>

#include "core/error_codes.h"
#include "url/address_class.h"

namespace pi_fusion::url {
namespace {

constexpr std::string_view kPublicPrefix = "must be a public http(s) URL: ";

// Names that resolve to the machine itself or to a cloud instance metadata service. Exact
// matches; the suffix list below catches whole local-only namespaces.
constexpr std::array<std::string_view, 13> kMetadataNames = {
    "metadata",                      // GCE short name
    "metadata.google.internal",      // GCE
    "metadata.goog",                 // GCE
    "instance-data",                 // AWS EC2 (VPC DNS)
    "instance-data.ec2.internal",    // AWS EC2
    "metadata.azure.com",            // Azure IMDS
    "metadata.azure.internal",       // Azure
    "metadata.tencentyun.com",       // Tencent Cloud
    "metadata.packet.net",           // Equinix Metal (legacy)
    "metadata.platformequinix.com",  // Equinix Metal
    "metadata.internal",             // generic
    "kubernetes.default.svc",        // in-cluster API server
    "kubernetes.default",
};

constexpr std::array<std::string_view, 4> kLocalNames = {"localhost", "localhost.localdomain",
                                                         "ip6-localhost", "ip6-loopback"};

// Namespaces that are never public DNS: RFC 6761 .localhost, mDNS .local, ICANN's private-use
// .internal, RFC 8375 .home.arpa, and the conventional .localdomain.
constexpr std::array<std::string_view, 5> kLocalSuffixes = {".localhost", ".local", ".internal",
                                                            ".home.arpa", ".localdomain"};

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

Status Blocked(const std::string& detail) {
  return Status::Error(kBlockedAddress, std::string(kPublicPrefix) + detail);
}

}  // namespace

Status CheckTransportAddress(const IpAddress& address) {
  AddressClass cls = ClassifyAddress(address);
  if (cls == AddressClass::kPublic) return Status::Ok();
  std::string detail = address.ToString() + " is " + std::string(AddressClassName(cls));
  if (cls == AddressClass::kIsatap) {
    IpAddress embedded = *IsatapEmbeddedIpv4(address);
    detail += " (" + embedded.ToString() + " is " +
              std::string(AddressClassName(ClassifyAddress(embedded))) + ")";
  }
  return Blocked(detail);
}

std::optional<std::string> BlockedHostNameReason(std::string_view host) {
  for (std::string_view name : kMetadataNames) {
    if (host == name) return "is a cloud metadata host name";
  }
  for (std::string_view name : kLocalNames) {
    if (host == name) return "is a local host name";
  }
  for (std::string_view suffix : kLocalSuffixes) {
    if (EndsWith(host, suffix)) return "is in a local-only namespace (" + std::string(suffix) + ")";
  }
  // A single-label name is resolved through search domains or local conventions, never as a
  // public DNS name.
  if (host.find('.') == std::string_view::npos) return "is not a fully qualified host name";
  return std::nullopt;
}

Result<CanonicalUrl> CheckTransportUrl(std::string_view url) {
  Result<CanonicalUrl> parsed = ParseCanonicalUrl(url);
  if (!parsed.ok()) return parsed;
  if (parsed->ip) {
    if (Status s = CheckTransportAddress(*parsed->ip); !s.ok()) return s;
    return parsed;
  }
  if (std::optional<std::string> reason = BlockedHostNameReason(parsed->host)) {
    return Blocked(parsed->host + " " + *reason);
  }
  return parsed;
}

Result<std::string> CanonicalizeDeclaredSource(std::string_view url) {
  Result<CanonicalUrl> checked = CheckTransportUrl(url);
  if (!checked.ok()) return checked.status();
  return checked->Text();
}

}  // namespace pi_fusion::url
