// What the user's Pi configuration adds to a provider's requests, as far as route admission cares:
// extra headers, and an Authorization header of Pi's own making.
//
// Pi reads `<agent dir>/models.json` ("providers": {"<id>": {baseUrl, headers, authHeader,
// modelOverrides: {"<model>": {headers, baseUrl}}, models: [{id, headers, baseUrl}]}}) and applies
// provider-level headers inside the credential resolution, so they never appear on the `Model`
// object the registry hands to extensions. The binding therefore reads the file itself and asks
// these pure functions what it overrides for one route. (An endpoint override does show on the
// model: Pi resolves models.json base URLs into `model.baseUrl`, which admission compares
// exactly.) A frontier route must reach its trusted endpoint with Pi's own credential and headers
// unchanged (spec/SCOPE.md section 3).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace pi_fusion::config {

struct ConfigOverrides {
  // Lowercase names of the headers models.json adds for this route.
  std::vector<std::string> header_names;
  // The models.json paths that add headers for this route ("providers.openai.headers",
  // "providers.openai.modelOverrides.gpt-5.5.headers", "providers.openai.authHeader", ...);
  // empty when the route's requests carry only what Pi itself sends.
  std::vector<std::string> locations;
};

// Parses models.json as Pi does (comments and a byte-order mark allowed). A text that does not
// parse yields a discarded value, which FindConfigOverrides treats as overriding everything: a
// frontier route is then refused rather than admitted unchecked. An empty text (no file) is an
// empty object.
nlohmann::json ParseModelsJson(std::string_view text);

// Looks up `provider` and `model_id` in the parsed models.json.
ConfigOverrides FindConfigOverrides(const nlohmann::json& models_json, std::string_view provider,
                                    std::string_view model_id);

// Headers that carry or replace a credential: authorization, x-api-key, api-key,
// proxy-authorization, cookie (ASCII case-insensitive).
bool IsCredentialHeader(std::string_view name);

}  // namespace pi_fusion::config
