// The url layer's building blocks: the address classifier, IP text forms, Punycode, redirect
// reference resolution, and the transport checks the fetcher uses.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "url/address_class.h"
#include "url/canonical_url.h"
#include "url/ip_address.h"
#include "url/punycode.h"
#include "url/source_policy.h"

namespace url = pi_fusion::url;
using url::AddressClass;

TEST_CASE("AddressClass: classifies every range by its boundaries", "[url]") {
  struct Case {
    const char* address;
    AddressClass cls;
  };
  const std::vector<Case> cases = {
      {"0.0.0.0", AddressClass::kUnspecified},
      {"0.255.255.255", AddressClass::kThisNetwork},
      {"9.255.255.255", AddressClass::kPublic},
      {"10.0.0.0", AddressClass::kPrivate},
      {"100.64.0.0", AddressClass::kSharedCgnat},
      {"127.0.0.0", AddressClass::kLoopback},
      {"169.254.255.255", AddressClass::kLinkLocal},
      {"172.16.0.0", AddressClass::kPrivate},
      {"192.0.0.255", AddressClass::kIetfProtocol},
      {"192.0.2.255", AddressClass::kDocumentation},
      {"192.88.99.255", AddressClass::k6to4Relay},
      {"192.168.0.0", AddressClass::kPrivate},
      {"198.18.0.0", AddressClass::kBenchmarking},
      {"198.51.100.0", AddressClass::kDocumentation},
      {"203.0.113.255", AddressClass::kDocumentation},
      {"224.0.0.0", AddressClass::kMulticast},
      {"239.255.255.255", AddressClass::kMulticast},
      {"240.0.0.0", AddressClass::kReserved},
      {"255.255.255.254", AddressClass::kReserved},
      {"255.255.255.255", AddressClass::kBroadcast},
      {"168.63.129.15", AddressClass::kPublic},
      {"168.63.129.16", AddressClass::kAzurePlatform},
      {"168.63.129.17", AddressClass::kPublic},
      {"93.184.216.34", AddressClass::kPublic},
      {"::", AddressClass::kUnspecified},
      {"::1", AddressClass::kLoopback},
      {"::ffff:0:0", AddressClass::kIpv4Mapped},
      {"::ffff:0:0:0", AddressClass::kIpv4Translated},
      {"::0.0.0.2", AddressClass::kIpv4Compatible},
      {"64:ff9b::", AddressClass::kNat64},
      {"64:ff9b:1:ffff::", AddressClass::kNat64},
      {"64:ff9b:2::", AddressClass::kReserved},
      {"100::ffff", AddressClass::kDiscardOnly},
      {"100:0:0:1::", AddressClass::kReserved},
      {"2001::", AddressClass::kTeredo},
      {"2001:0:ffff::", AddressClass::kTeredo},
      {"2001:1::1", AddressClass::kIetfProtocol},
      {"2001:db8:ffff::", AddressClass::kDocumentation},
      {"2001:200::", AddressClass::kPublic},
      {"2002::", AddressClass::k6to4},
      {"2003::", AddressClass::kPublic},
      {"3fff:0fff::", AddressClass::kDocumentation},
      {"3fff:1000::", AddressClass::kPublic},
      {"5f00::", AddressClass::kReserved},
      {"fbff::", AddressClass::kReserved},
      {"fc00::", AddressClass::kUniqueLocal},
      {"fdff::", AddressClass::kUniqueLocal},
      {"fe80::", AddressClass::kLinkLocal},
      {"fec0::", AddressClass::kSiteLocal},
      {"ff00::", AddressClass::kMulticast},
      {"2606:4700::1111", AddressClass::kPublic},
      {"3ffe::1", AddressClass::kPublic},
  };
  for (const Case& c : cases) {
    INFO(c.address);
    auto ip = url::ParseIpAddress(c.address);
    REQUIRE(ip.has_value());
    CHECK(url::ClassifyAddress(*ip) == c.cls);
  }
}

TEST_CASE("IpAddress: strict parsing refuses URL-only numeric forms", "[url]") {
  for (const char* text : {"127.1", "0177.0.0.1", "2130706433", "0x7f.0.0.1", "1.2.3.04", "1.2.3",
                           ":::", "1::2::3", "::1%eth0", "[::1]", "1:2:3:4:5:6:7:8:9", "::g"}) {
    INFO(text);
    CHECK_FALSE(url::ParseIpAddress(text).has_value());
  }
  CHECK(url::ParseIpAddress("1::")->ToString() == "1::");
  CHECK(url::ParseIpAddress("0:0:1::")->ToString() == "0:0:1::");
  CHECK(url::ParseIpAddress("1:0:0:2:0:0:0:3")->ToString() == "1:0:0:2::3");
  CHECK(url::ParseIpAddress("::ffff:1.2.3.4")->ToString() == "::ffff:102:304");
}

TEST_CASE("Punycode: RFC 3492 sample strings", "[url]") {
  // RFC 3492 section 7.1 (B) Chinese (simplified) and (L) Japanese mixed with ASCII.
  std::u32string chinese = U"\u4ED6\u4EEC\u4E3A\u4EC0\u4E48\u4E0D\u8BF4\u4E2D\u6587";
  CHECK(url::PunycodeEncode(chinese) == "ihqwcrb4cv8a8dqg056pqjye");
  std::u32string mixed = U"3\u5E74B\u7D44\u91D1\u516B\u5148\u751F";
  CHECK(url::PunycodeEncode(mixed) == "3B-ww4c5e180e575a65lsy2b");
  CHECK(url::PunycodeEncode(U"b\u00FCcher") == "bcher-kva");
}

TEST_CASE("CanonicalUrl: resolves redirect references", "[url]") {
  auto base = url::ParseCanonicalUrl("https://example.com/a/b/c?x=1");
  REQUIRE(base.ok());
  struct Case {
    const char* reference;
    const char* expected;
  };
  for (const Case& c : std::vector<Case>{
           {"https://other.example/x", "https://other.example/x"},
           {"//other.example/y", "https://other.example/y"},
           {"/root", "https://example.com/root"},
           {"?q=2", "https://example.com/a/b/c?q=2"},
           {"d", "https://example.com/a/b/d"},
           {"../d?z", "https://example.com/a/d?z"},
           {"#frag", "https://example.com/a/b/c?x=1"},
           {"  /spaced  ", "https://example.com/spaced"},
           {"file:///etc/passwd", "file:///etc/passwd"},
       }) {
    INFO(c.reference);
    auto resolved = url::ResolveReference(*base, c.reference);
    REQUIRE(resolved.ok());
    auto canonical = url::ParseCanonicalUrl(*resolved);
    if (std::string(c.expected).rfind("file:", 0) == 0) {
      CHECK(canonical.status().code() == "unsupported_scheme");
    } else {
      REQUIRE(canonical.ok());
      CHECK(canonical->Text() == c.expected);
    }
  }
}

TEST_CASE("UrlPolicy: transport checks refuse the Azure platform address", "[url]") {
  auto status = url::CheckTransportAddress(*url::ParseIpAddress("168.63.129.16"));
  CHECK(status.code() == "blocked_address");
  CHECK(status.message() ==
        "must be a public http(s) URL: 168.63.129.16 is the Azure platform service address "
        "(WireServer)");
  for (const char* u : {"http://168.63.129.16/", "http://0xa8.0x3f.0x81.0x10/",
                        "http://2822734096/", "https://168.63.129.16:32526/"}) {
    INFO(u);
    CHECK(url::CheckTransportUrl(u).status().code() == "blocked_address");
    CHECK(url::CanonicalizeDeclaredSource(u).status().code() == "blocked_address");
  }
  CHECK(url::CheckTransportAddress(*url::ParseIpAddress("168.63.129.17")).ok());
}

TEST_CASE("AddressClass: ISATAP interface ids embedding a non-public IPv4 are refused", "[url]") {
  struct Case {
    const char* address;
    const char* refusal;  // "" when public
  };
  const std::vector<Case> cases = {
      {"2001:4860:1:2:0:5efe:7f00:1", "(127.0.0.1 is loopback)"},
      {"2001:4860:1:2:200:5efe:7f00:1", "(127.0.0.1 is loopback)"},
      {"2001:4860:1:2:100:5efe:a00:1", "(10.0.0.1 is private (RFC 1918))"},
      {"2001:4860:1:2:300:5efe:c0a8:101", "(192.168.1.1 is private (RFC 1918))"},
      {"2001:4860::5efe:a9fe:a9fe", "(169.254.169.254 is link-local)"},
      {"2001:4860::200:5efe:a83f:8110", "(168.63.129.16 is the Azure platform service address"},
      {"2a00:1450:4001:800:0:5efe:0:0", "(0.0.0.0 is unspecified)"},
      // Public embedded addresses and ids that only look similar stay public.
      {"2001:4860:1:2:0:5efe:808:808", ""},
      {"2001:4860:1:2:200:5efe:5db8:d70e", ""},
      {"2001:4860:1:2:400:5efe:7f00:1", ""},
      {"2001:4860:1:2:0:5eff:7f00:1", ""},
      {"2001:4860:1:2:1:5efe:7f00:1", ""},
      {"2001:4860:1:2:0:0:7f00:1", ""},
  };
  for (const Case& c : cases) {
    INFO(c.address);
    auto address = url::ParseIpAddress(c.address);
    REQUIRE(address.has_value());
    auto status = url::CheckTransportAddress(*address);
    if (std::string(c.refusal).empty()) {
      CHECK(url::ClassifyAddress(*address) == AddressClass::kPublic);
      CHECK(status.ok());
    } else {
      CHECK(url::ClassifyAddress(*address) == AddressClass::kIsatap);
      CHECK(status.code() == "blocked_address");
      CHECK_THAT(status.message(),
                 Catch::Contains("is ISATAP embedding a non-public IPv4 address " +
                                 std::string(c.refusal)));
      // The same address refused as a URL literal, in any spelling.
      CHECK(url::CheckTransportUrl("http://[" + std::string(c.address) + "]/").status().code() ==
            "blocked_address");
    }
  }
  // Dotted notation of the embedded address is read the same way.
  CHECK(url::CheckTransportUrl("http://[2001:4860:1:2:0:5efe:127.0.0.1]/").status().code() ==
        "blocked_address");
  CHECK_FALSE(url::IsatapEmbeddedIpv4(*url::ParseIpAddress("8.8.8.8")).has_value());
}

TEST_CASE("UrlPolicy: transport address check names the class", "[url]") {
  auto status = url::CheckTransportAddress(*url::ParseIpAddress("10.1.2.3"));
  CHECK(status.code() == "blocked_address");
  CHECK(status.message() == "must be a public http(s) URL: 10.1.2.3 is private (RFC 1918)");
  CHECK(url::CheckTransportAddress(*url::ParseIpAddress("::ffff:127.0.0.77")).code() ==
        "blocked_address");
}

TEST_CASE("UrlPolicy: host-name deny list", "[url]") {
  for (const char* name : {"localhost", "a.b.localhost", "metadata.google.internal",
                           "metadata.goog", "instance-data.ec2.internal", "x.local", "wpad"}) {
    INFO(name);
    CHECK(url::BlockedHostNameReason(name).has_value());
  }
  for (const char* name : {"example.com", "localhost.example.com", "metadata.example.com",
                           "internal.example.com", "local.example.com"}) {
    INFO(name);
    CHECK_FALSE(url::BlockedHostNameReason(name).has_value());
  }
}
