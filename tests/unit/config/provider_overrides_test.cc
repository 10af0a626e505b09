// models.json overrides that route admission must see (provider-level headers never reach the
// Model object Pi hands to extensions).
#include "config/provider_overrides.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace pi_fusion::config {
namespace {

using Strings = std::vector<std::string>;

TEST_CASE("ProviderOverrides: what models.json adds to a route") {
  const nlohmann::json doc = ParseModelsJson(R"({
    // Pi allows comments here.
    "providers": {
      "openai": {
        "headers": {"X-Org": "acme", "Authorization": "Bearer sk-x"},
        "modelOverrides": {
          "gpt-5.5": {"headers": {"x-trace": "1"}, "contextWindow": 1000},
          "gpt-5.4": {"contextWindow": 1000}
        },
        "models": [{"id": "gpt-custom", "headers": {"cookie": "c"}}]
      },
      "anthropic": {"authHeader": true},
      "openai-codex": {"modelOverrides": {"gpt-5.5": {"headers": {}}}},
      "local": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k"}
    }
  })");
  REQUIRE_FALSE(doc.is_discarded());

  ConfigOverrides o = FindConfigOverrides(doc, "openai", "gpt-5.5");
  CHECK(o.locations ==
        Strings{"providers.openai.headers", "providers.openai.modelOverrides.gpt-5.5.headers"});
  CHECK(o.header_names == Strings{"authorization", "x-org", "x-trace"});

  o = FindConfigOverrides(doc, "openai", "gpt-5.4");
  CHECK(o.locations == Strings{"providers.openai.headers"});

  o = FindConfigOverrides(doc, "openai", "gpt-custom");
  CHECK(o.locations ==
        Strings{"providers.openai.headers", "providers.openai.models[gpt-custom].headers"});
  CHECK(o.header_names.back() == "cookie");

  CHECK(FindConfigOverrides(doc, "anthropic", "claude-x").locations ==
        Strings{"providers.anthropic.authHeader"});
  // Empty header maps, base URLs (they show on model.baseUrl) and keys add no header.
  CHECK(FindConfigOverrides(doc, "openai-codex", "gpt-5.5").locations.empty());
  CHECK(FindConfigOverrides(doc, "local", "m").locations.empty());
  CHECK(FindConfigOverrides(doc, "nobody", "m").locations.empty());
}

TEST_CASE("ProviderOverrides: no file, odd shapes and an unparsable file") {
  CHECK(FindConfigOverrides(ParseModelsJson(""), "openai", "gpt-5.5").locations.empty());
  CHECK(FindConfigOverrides(ParseModelsJson("[]"), "openai", "gpt-5.5").locations.empty());
  CHECK(FindConfigOverrides(ParseModelsJson(R"({"providers": {"openai": 3}})"), "openai", "x")
            .locations.empty());
  // Unreadable means "cannot vouch for it": every route is treated as overridden.
  const nlohmann::json broken = ParseModelsJson(R"({"providers": {)");
  CHECK(broken.is_discarded());
  CHECK(FindConfigOverrides(broken, "openai", "gpt-5.5").locations ==
        Strings{"models.json (does not parse)"});
}

TEST_CASE("ProviderOverrides: credential headers") {
  for (const char* name :
       {"Authorization", "x-api-key", "API-KEY", "proxy-authorization", "Cookie"}) {
    INFO(name);
    CHECK(IsCredentialHeader(name));
  }
  for (const char* name : {"x-org", "authorizationx", "openai-beta", ""}) {
    INFO(name);
    CHECK_FALSE(IsCredentialHeader(name));
  }
}

}  // namespace
}  // namespace pi_fusion::config
