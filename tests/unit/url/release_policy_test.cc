// Proves the release behaviour of the test-only loopback allowance. This binary links the url
// sources compiled a second time without PI_FUSION_TEST_PUBLIC_ADDRESS (see CMakeLists.txt),
// exactly as a -DPI_FUSION_TEST_BUILD=OFF build compiles them.
#include <catch2/catch.hpp>

#include "url/ip_address.h"
#include "url/source_policy.h"

namespace url = pi_fusion::url;

TEST_CASE("UrlPolicy: release builds block the test address", "[url]") {
  CHECK_FALSE(url::TestPublicAddressAllowed());
  auto declared = url::CanonicalizeDeclaredSource("http://127.0.0.77/");
  REQUIRE_FALSE(declared.ok());
  CHECK(declared.status().code() == "blocked_address");
  CHECK(declared.status().message() == "must be a public http(s) URL: 127.0.0.77 is loopback");
  auto address = url::ParseIpAddress(url::kTestPublicAddress);
  REQUIRE(address.has_value());
  CHECK(url::CheckTransportAddress(*address).code() == "blocked_address");
  CHECK(url::CheckTransportUrl("http://127.0.0.77:8080/").status().code() == "blocked_address");
}

TEST_CASE("UrlPolicy: release builds block 127.0.0.1", "[url]") {
  CHECK(url::CanonicalizeDeclaredSource("http://127.0.0.1/").status().code() == "blocked_address");
}
