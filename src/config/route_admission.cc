#include "config/route_admission.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "config/frontier.h"

namespace pi_fusion::config {

namespace {

Status Unavailable(const std::string& message) {
  return Status::Error(std::string(kModelUnavailable), message + " " + std::string(kChooseHint));
}

std::string RouteText(Slot slot, const ModelInfo& model) {
  return std::string(SlotLabel(slot)) + " route " + model.QualifiedId();
}

Result<ModelInfo> Resolve(Slot slot, const Selection& selection, const RegistrySnapshot& snapshot) {
  const std::string label(SlotLabel(slot));
  if (selection.is_current) {
    if (snapshot.current) return *snapshot.current;
    return Unavailable(label +
                       " is $current, but the session has no current model. Pick one "
                       "with /model, or set " +
                       label + " explicitly.");
  }
  for (const ModelInfo& model : snapshot.models) {
    if (model.provider == selection.provider && model.id == selection.model) return model;
  }
  return Unavailable(label + " model " + selection.provider + "/" + selection.model +
                     " is not available in Pi's model registry (unknown model, or its provider "
                     "has no credentials).");
}

std::string Joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// The ChatGPT subscription on `openai`: the same provider also serves metered OPENAI_API_KEY
// traffic, so the credential must be the subscription login and the requests Pi's own.
std::optional<std::string> OpenAISubscriptionRefusal(const ModelInfo& model) {
  if (!model.header_overrides.empty()) {
    return "adds headers (" + Joined(model.header_overrides) +
           "); an openai route is admitted only as Pi's ChatGPT subscription sign-in with no "
           "header or base-URL override.";
  }
  if (!model.is_using_oauth) {
    return std::string(
        "uses an OpenAI API key (metered; OPENAI_API_KEY or a stored key), not the ChatGPT "
        "subscription; sign in with /login openai (\"Sign in with ChatGPT\") to use it.");
  }
  if (!model.oauth_is_subscription) {
    return std::string(
        "uses an OAuth login that Pi does not report as a subscription (Pi 0.99 or newer "
        "provides \"Sign in with ChatGPT\" on openai).");
  }
  return std::nullopt;
}

// The subscription-OAuth rules for a frontier route: why it is refused, or nothing when all hold.
std::optional<std::string> FrontierRefusal(const ModelInfo& model, const std::string& reason) {
  std::string_view expected_url;
  if (model.provider == kAnthropicProvider) expected_url = kAnthropicBaseUrl;
  if (model.provider == kCodexProvider) expected_url = kCodexBaseUrl;
  if (model.provider == kOpenAIProvider) expected_url = kOpenAIBaseUrl;
  if (expected_url.empty()) {
    return "is a frontier route (" + reason +
           "). Fusion admits frontier models only through Pi's subscription OAuth providers "
           "anthropic, openai-codex and openai (ChatGPT sign-in), never through OpenRouter, "
           "Azure or API-key routes.";
  }
  if (model.base_url != expected_url) {
    return "uses the endpoint \"" + model.base_url +
           "\"; a frontier route is admitted only on exactly " + std::string(expected_url) + ".";
  }
  if (model.provider_replaced) {
    return "comes from an extension that registers the provider " + model.provider +
           " itself; a frontier route must use Pi's own provider unchanged.";
  }
  if (model.has_auth_header_overrides) {
    return std::string(
        "has auth header overrides; a frontier route must use Pi's own subscription OAuth "
        "credentials unchanged.");
  }
  if (model.provider == kOpenAIProvider) return OpenAISubscriptionRefusal(model);
  if (!model.is_using_oauth) {
    return std::string(
        "is not using subscription OAuth (an API key is configured); log in with /login to use "
        "it.");
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> RouteRefusal(const ModelInfo& model) {
  const FrontierSignal signal =
      DetectFrontier(model.provider, model.id, model.name, model.base_url);
  if (signal.frontier) {
    if (std::optional<std::string> refusal = FrontierRefusal(model, signal.reason)) return refusal;
  }
  if (model.context_window <= 0) {
    return "has no usable context window (contextWindow " + std::to_string(model.context_window) +
           "); set contextWindow for it in models.json.";
  }
  return std::nullopt;
}

Result<ResolvedRoute> AdmitRoute(Slot slot, std::string_view selection_text,
                                 const RegistrySnapshot& snapshot) {
  Result<Selection> selection = ParseSelection(slot, selection_text);
  if (!selection.ok()) return selection.status();
  Result<ModelInfo> model = Resolve(slot, *selection, snapshot);
  if (!model.ok()) return model.status();
  if (std::optional<std::string> refusal = RouteRefusal(*model)) {
    return Unavailable(RouteText(slot, *model) + " " + *refusal);
  }
  const bool frontier =
      DetectFrontier(model->provider, model->id, model->name, model->base_url).frontier;
  return ResolvedRoute{slot, std::string(selection_text), std::move(model).value(), frontier};
}

Result<ResolvedModels> AdmitModels(const ModelsConfig& config, const RegistrySnapshot& snapshot) {
  ResolvedModels models;
  models.thinking_level = snapshot.thinking_level;
  std::vector<Status> refused;
  for (Slot slot : kAllSlots) {
    Result<ResolvedRoute> route = AdmitRoute(slot, config.selection(slot), snapshot);
    if (!route.ok()) {
      refused.push_back(route.status());
      continue;
    }
    models.routes[static_cast<size_t>(slot)] = std::move(route).value();
  }
  if (refused.empty()) return models;
  if (refused.size() == 1) return refused.front();
  // Every bad slot, so one round of /fusion-models fixes them all; the hint said once.
  const std::string hint = " " + std::string(kChooseHint);
  std::string message;
  for (const Status& status : refused) {
    std::string text = status.message();
    if (text.ends_with(hint)) text.resize(text.size() - hint.size());
    message += (message.empty() ? "" : " ") + text;
  }
  const bool any_unavailable = std::any_of(refused.begin(), refused.end(), [](const Status& s) {
    return s.code() == kModelUnavailable;
  });
  if (any_unavailable) message += " Choose other models for them with /fusion-models.";
  return Status::Error(refused.front().code(), message);
}

namespace {

nlohmann::json RouteJson(const ResolvedRoute& r) {
  return {{"provider", r.model.provider}, {"model", r.model.id}};
}

}  // namespace

nlohmann::json ResolvedModelsToJson(const ResolvedModels& models) {
  nlohmann::json candidates = nlohmann::json::array();
  for (Slot slot : {Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3}) {
    candidates.push_back(RouteJson(models.route(slot)));
  }
  return {{"candidates", candidates},
          {SlotId(Slot::kEvaluator), RouteJson(models.route(Slot::kEvaluator))},
          {SlotId(Slot::kMerger), RouteJson(models.route(Slot::kMerger))},
          {"thinking_level", models.thinking_level}};
}

}  // namespace pi_fusion::config
