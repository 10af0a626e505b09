// Route admission: resolves each configured slot to a model from the host's registry snapshot
// and admits it under the route policy of spec/SCOPE.md section 3.
//
//   "$current"        the session's current model; refused when there is none;
//   "provider/model"  the registry row with exactly that provider and id; refused when absent;
//   frontier routes   (frontier.h) admitted only as provider anthropic with base URL exactly
//                     https://api.anthropic.com, openai-codex with exactly
//                     https://chatgpt.com/backend-api, or openai with exactly
//                     https://api.openai.com/v1; no auth-header overrides, the provider not
//                     replaced by an extension, and isUsingOAuth(model) true. For openai (where
//                     Pi 0.99+ puts "Sign in with ChatGPT") also: the OAuth is the provider's
//                     subscription login and no header is added at all, because the same
//                     provider serves metered OPENAI_API_KEY traffic;
//   every route       needs a positive context window.
// A refusal is model_unavailable: "<Slot> route <provider/id> ..." with the reason and what to
// do. There is no fallback or substitution. Children run at the parent's thinking level, which
// the resolved models carry.
//
// Inputs are plain values the binding copies from Pi on the JS thread; pure functions;
// thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/models_config.h"
#include "pi_fusion/status.h"

namespace pi_fusion::config {

// Pi's model.cost: US dollars per million tokens.
struct ModelPrices {
  double input = 0;
  double output = 0;
  double cache_read = 0;
  double cache_write = 0;

  bool operator==(const ModelPrices&) const = default;
};

// One registry row (Pi `Model` plus what the registry says about its credentials).
struct ModelInfo {
  std::string provider;
  std::string id;
  std::string name;
  std::string api;             // "anthropic-messages", "openai-completions", ...
  std::string base_url;        // model.baseUrl as Pi resolves it
  int64_t context_window = 0;  // 0 when unknown or not a positive finite number
  int64_t max_tokens = 0;      // 0 when unknown
  bool reasoning = false;
  bool is_using_oauth = false;  // modelRegistry.isUsingOAuth(model): the stored credential is OAuth
  // getProvider(provider).auth.oauth.isSubscription: the provider's OAuth login is a subscription.
  bool oauth_is_subscription = false;
  bool has_auth_header_overrides = false;  // configured headers that carry credentials
  // Where configured headers for this route come from ("model.headers", models.json paths, see
  // provider_overrides.h); empty when requests carry only what Pi itself sends.
  std::vector<std::string> header_overrides;
  // An extension registered this provider id itself (registerProvider), replacing Pi's own.
  bool provider_replaced = false;
  std::optional<bool> supports_long_cache_retention;  // compat.supportsLongCacheRetention
  // model.cost {input, output, cacheRead, cacheWrite}; nullopt when Pi gave no such object or a
  // price that is not a finite, non-negative number (the cost estimate then names no dollars).
  std::optional<ModelPrices> prices;

  std::string QualifiedId() const { return provider + "/" + id; }
};

struct RegistrySnapshot {
  // The rows a slot may name: the binding passes modelRegistry.getAvailable() (models whose
  // provider has usable credentials).
  std::vector<ModelInfo> models;
  std::optional<ModelInfo> current;  // ctx.model, if any
  std::string thinking_level;        // the parent's: "off" | "minimal" | ... | "max"
};

struct ResolvedRoute {
  Slot slot = Slot::kCandidate1;
  std::string selection;  // as configured: "$current" or "provider/model"
  ModelInfo model;
  bool frontier = false;
};

struct ResolvedModels {
  std::array<ResolvedRoute, 5> routes;  // in kAllSlots order
  std::string thinking_level;           // the parent's: a role's children run at it by default
  // A named panel's levels per role (config/panels.h); nullopt for a role: thinking_level.
  RoleThinking role_thinking;

  // The level `role`'s children run at.
  const std::string& ThinkingOf(Role role) const {
    const std::optional<std::string>& own = role_thinking.of(role);
    return own ? *own : thinking_level;
  }

  const ResolvedRoute& route(Slot slot) const { return routes[static_cast<size_t>(slot)]; }
};

// Why the route policy refuses `model` (a sentence that follows "<provider>/<id> ", for example
// "is a frontier route (provider openai). ..."), or nothing when it is admitted. AdmitRoute
// applies exactly this check; the selector uses it to mark models that cannot be picked.
std::optional<std::string> RouteRefusal(const ModelInfo& model);

// Resolves and admits one slot. config_invalid when `selection` breaks the syntax rules,
// model_unavailable when it cannot be resolved or is refused by the policy.
Result<ResolvedRoute> AdmitRoute(Slot slot, std::string_view selection,
                                 const RegistrySnapshot& snapshot);

// Admits all five slots. One refusal is returned as it is; several are named together in slot
// order (the first refusal's code), with one hint to choose other models.
Result<ResolvedModels> AdmitModels(const ModelsConfig& config, const RegistrySnapshot& snapshot);

// {"candidates":[route x3],"evaluator":route,"merger":route,"thinking_level":...} with route
// {provider, model}: the manifest's closed `models` record (schemas/artifacts/
// fusion-manifest.v5.json). Windows and rates are recorded in budget-plan.json instead.
nlohmann::json ResolvedModelsToJson(const ResolvedModels& models);

}  // namespace pi_fusion::config
