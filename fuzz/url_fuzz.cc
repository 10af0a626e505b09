// URL canonicalization and address classification on hostile text (a model's declared source, a
// redirect Location, a resolver answer). Invariants: canonical text is a fixed point of the
// parser, an address prints as text that parses back to it, and the policy entry points agree
// with the parser about what is a URL.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "url/address_class.h"
#include "url/canonical_url.h"
#include "url/ip_address.h"
#include "url/source_policy.h"

namespace {

using namespace pi_fusion::url;

void CheckAddress(const std::optional<IpAddress>& address) {
  if (!address) return;
  FUZZ_CHECK(!AddressClassName(ClassifyAddress(*address)).empty());
  const std::optional<IpAddress> again = ParseIpAddress(address->ToString());
  FUZZ_CHECK(again.has_value() && *again == *address);
  // The transport check and the classifier agree: only a public address is let through.
  FUZZ_CHECK(CheckTransportAddress(*address).ok() ==
             (ClassifyAddress(*address) == AddressClass::kPublic));
}

// A URL that parses prints as canonical text that parses back to itself.
void CheckFixedPoint(const CanonicalUrl& url) {
  const std::string text = url.Text();
  const auto again = ParseCanonicalUrl(text);
  FUZZ_CHECK(again.ok() && again->Text() == text);
}

// A resolved redirect target is judged by the parser like any URL: refused with a typed error, or
// canonical.
void CheckResolved(const pi_fusion::Result<std::string>& resolved) {
  if (!resolved.ok()) return;
  const auto judged = ParseCanonicalUrl(*resolved);
  if (judged.ok()) CheckFixedPoint(*judged);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckAddress(ParseIpAddress(input));
  CheckAddress(ParseUrlIpv4Host(input));

  const auto url = ParseCanonicalUrl(input);
  if (url.ok()) {
    CheckFixedPoint(*url);
    CheckAddress(url->ip);
    if (!url->ip) BlockedHostNameReason(url->host);
    CheckResolved(ResolveReference(*url, input));
  }

  const auto declared = CanonicalizeDeclaredSource(input);
  if (declared.ok()) {
    // An admitted source is canonical: admitting it again changes nothing.
    const auto again = CanonicalizeDeclaredSource(*declared);
    FUZZ_CHECK(again.ok() && *again == *declared);
  }
  // The transport check agrees with the parser about what is a URL, and lets through only what
  // it parsed.
  const auto transport = CheckTransportUrl(input);
  FUZZ_CHECK(!transport.ok() || (url.ok() && transport->Text() == url->Text()));

  // A redirect from a fixed page: any reference resolves or fails with a typed error.
  static const auto base = ParseCanonicalUrl("https://example.com/a/b?q=1");
  CheckResolved(ResolveReference(*base, input));
  return 0;
}
