#include <catch2/catch.hpp>

#include <string>

#include "config/route_admission.h"

namespace pi_fusion::config {
namespace {

ModelInfo Local(std::string id = "scripted-a") {
  ModelInfo m;
  m.provider = "local";
  m.id = std::move(id);
  m.name = "Scripted";
  m.api = "openai-completions";
  m.base_url = "http://127.0.0.1:8080/v1";
  m.context_window = 65536;
  m.max_tokens = 4096;
  return m;
}

ModelInfo Anthropic() {
  ModelInfo m;
  m.provider = "anthropic";
  m.id = "claude-sonnet-4-5";
  m.name = "Claude Sonnet 4.5";
  m.api = "anthropic-messages";
  m.base_url = "https://api.anthropic.com";
  m.context_window = 1000000;
  m.max_tokens = 64000;
  m.is_using_oauth = true;
  m.supports_long_cache_retention = true;
  return m;
}

ModelInfo Codex() {
  ModelInfo m;
  m.provider = "openai-codex";
  m.id = "gpt-5.5";
  m.api = "openai-codex-responses";
  m.base_url = "https://chatgpt.com/backend-api";
  m.context_window = 400000;
  m.max_tokens = 128000;
  m.is_using_oauth = true;
  return m;
}

// "Sign in with ChatGPT" on Pi 0.99+: subscription OAuth on the openai provider.
ModelInfo OpenAISubscription() {
  ModelInfo m;
  m.provider = "openai";
  m.id = "gpt-5.5";
  m.name = "GPT-5.5";
  m.api = "openai-responses";
  m.base_url = "https://api.openai.com/v1";
  m.context_window = 400000;
  m.max_tokens = 128000;
  m.is_using_oauth = true;
  m.oauth_is_subscription = true;
  return m;
}

RegistrySnapshot Snapshot(std::vector<ModelInfo> models) {
  RegistrySnapshot s;
  s.models = std::move(models);
  s.thinking_level = "high";
  return s;
}

TEST_CASE("RouteAdmission: admission table") {
  struct Row {
    std::string name;
    ModelInfo model;
    std::string refusal;  // "" = admitted
  };
  std::vector<Row> rows;
  rows.push_back({"local route with a window", Local(), ""});
  rows.push_back({"anthropic subscription OAuth", Anthropic(), ""});
  rows.push_back({"openai-codex subscription OAuth", Codex(), ""});
  {
    ModelInfo m = Local();
    m.context_window = 0;
    rows.push_back({"local route without a window", m, "has no usable context window"});
  }
  {
    ModelInfo m = Anthropic();
    m.context_window = 0;
    rows.push_back({"frontier route without a window", m, "has no usable context window"});
  }
  {
    ModelInfo m = Anthropic();
    m.is_using_oauth = false;
    rows.push_back({"anthropic API key", m, "is not using subscription OAuth"});
  }
  {
    ModelInfo m = Anthropic();
    m.base_url = "https://api.anthropic.com/";
    rows.push_back({"anthropic endpoint not exact", m,
                    "a frontier route is admitted only on "
                    "exactly https://api.anthropic.com"});
  }
  {
    ModelInfo m = Codex();
    m.base_url = "http://127.0.0.1:9/backend-api";
    rows.push_back({"codex on another endpoint", m, "exactly https://chatgpt.com/backend-api"});
  }
  {
    ModelInfo m = Anthropic();
    m.has_auth_header_overrides = true;
    rows.push_back({"auth header overrides", m, "has auth header overrides"});
  }
  rows.push_back({"openai ChatGPT subscription OAuth", OpenAISubscription(), ""});
  {
    ModelInfo m = OpenAISubscription();
    m.is_using_oauth = false;  // OPENAI_API_KEY, a stored key or --api-key: metered
    rows.push_back({"openai API key", m, "uses an OpenAI API key (metered"});
  }
  {
    ModelInfo m = OpenAISubscription();
    m.oauth_is_subscription = false;  // an OAuth that the provider does not call a subscription
    rows.push_back(
        {"openai OAuth that is not a subscription", m, "does not report as a subscription"});
  }
  {
    ModelInfo m = OpenAISubscription();
    m.base_url = "https://proxy.example.com/v1";
    rows.push_back({"openai base URL override", m, "exactly https://api.openai.com/v1"});
  }
  {
    ModelInfo m = OpenAISubscription();
    m.base_url = "https://api.openai.com/v1/";
    rows.push_back({"openai endpoint not exact", m, "exactly https://api.openai.com/v1"});
  }
  {
    ModelInfo m = OpenAISubscription();
    m.header_overrides = {"models.json providers.openai.headers"};
    rows.push_back({"openai with a plain header override", m,
                    "adds headers (models.json providers.openai.headers); an openai route is "
                    "admitted only as Pi's ChatGPT subscription sign-in with no header or "
                    "base-URL override"});
  }
  {
    ModelInfo m = OpenAISubscription();
    m.header_overrides = {"model.headers"};
    m.has_auth_header_overrides = true;
    rows.push_back({"openai with an auth header override", m, "has auth header overrides"});
  }
  {
    ModelInfo m = OpenAISubscription();
    m.provider_replaced = true;
    rows.push_back({"openai replaced by an extension", m, "registers the provider openai itself"});
  }
  {
    ModelInfo m = Anthropic();
    m.provider_replaced = true;
    rows.push_back(
        {"anthropic replaced by an extension", m, "registers the provider anthropic itself"});
  }
  {
    // A plain header on the Anthropic subscription route stays allowed (only credential headers
    // are refused there), as before.
    ModelInfo m = Anthropic();
    m.header_overrides = {"models.json providers.anthropic.headers"};
    rows.push_back({"anthropic with a non-credential header", m, ""});
  }
  {
    ModelInfo m = Local("anthropic/claude-sonnet-4");
    m.provider = "openrouter";
    rows.push_back({"openrouter", m, "frontier route (provider openrouter)"});
  }
  {
    ModelInfo m = Local("gpt-oss-20b");
    rows.push_back({"local server running a frontier-named model", m,
                    "frontier route (model segment \"gpt\")"});
  }
  {
    ModelInfo m = Local("my-model");
    m.base_url = "https://api.openai.com/v1";
    rows.push_back(
        {"custom provider pointing at OpenAI", m, "frontier route (endpoint host api.openai.com)"});
  }
  {
    ModelInfo m = Local();
    m.provider = "azure-openai-responses";
    m.is_using_oauth = true;
    rows.push_back({"azure", m, "frontier route (provider azure-openai-responses)"});
  }
  for (const Row& row : rows) {
    INFO(row.name);
    const std::string selection = row.model.QualifiedId();
    auto route = AdmitRoute(Slot::kEvaluator, selection, Snapshot({row.model}));
    if (row.refusal.empty()) {
      REQUIRE(route.ok());
      CHECK(route->model.QualifiedId() == selection);
      CHECK(route->selection == selection);
    } else {
      REQUIRE_FALSE(route.ok());
      CHECK(route.status().code() == "model_unavailable");
      CHECK_THAT(route.status().message(),
                 Catch::StartsWith("Evaluator route " + selection) &&
                     Catch::Contains(row.refusal) &&
                     Catch::EndsWith("Choose another model for it with /fusion-models."));
    }
  }
}

TEST_CASE("RouteAdmission: frontier flag and carried fields") {
  auto route = AdmitRoute(Slot::kMerger, "anthropic/claude-sonnet-4-5", Snapshot({Anthropic()}));
  REQUIRE(route.ok());
  CHECK(route->frontier);
  CHECK(route->slot == Slot::kMerger);
  CHECK(route->model.supports_long_cache_retention == true);
  auto local = AdmitRoute(Slot::kMerger, "local/scripted-a", Snapshot({Local()}));
  REQUIRE(local.ok());
  CHECK_FALSE(local->frontier);
}

TEST_CASE("RouteAdmission: $current") {
  SECTION("needs a current model") {
    auto route = AdmitRoute(Slot::kCandidate2, "$current", Snapshot({Local()}));
    REQUIRE_FALSE(route.ok());
    CHECK(route.status().code() == "model_unavailable");
    CHECK_THAT(route.status().message(),
               Catch::StartsWith("Candidate 2 is $current, but the session has no current model") &&
                   Catch::Contains("/fusion-models"));
  }
  SECTION("resolves to the current model") {
    RegistrySnapshot s = Snapshot({});
    s.current = Local("current-one");
    auto route = AdmitRoute(Slot::kCandidate2, "$current", s);
    REQUIRE(route.ok());
    CHECK(route->model.id == "current-one");
    CHECK(route->selection == "$current");
  }
  SECTION("the current model is held to the same policy") {
    RegistrySnapshot s = Snapshot({});
    ModelInfo current = OpenAISubscription();
    current.is_using_oauth = false;
    s.current = current;
    auto route = AdmitRoute(Slot::kCandidate2, "$current", s);
    CHECK(route.status().code() == "model_unavailable");
  }
}

TEST_CASE("RouteAdmission: unknown models and bad selections") {
  auto unknown = AdmitRoute(Slot::kCandidate1, "local/nope", Snapshot({Local()}));
  CHECK(unknown.status().code() == "model_unavailable");
  CHECK_THAT(unknown.status().message(),
             Catch::StartsWith("Candidate 1 model local/nope is not available"));
  // Exact match only: provider and id are case-sensitive, as in Pi's registry.
  CHECK_FALSE(AdmitRoute(Slot::kCandidate1, "Local/scripted-a", Snapshot({Local()})).ok());
  CHECK(AdmitRoute(Slot::kCandidate1, "scripted-a", Snapshot({Local()})).status().code() ==
        "config_invalid");
}

TEST_CASE("RouteAdmission: AdmitModels resolves all slots and carries the thinking level") {
  ModelsConfig config;
  config.candidates = {"local/scripted-a", "anthropic/claude-sonnet-4-5", "$current"};
  config.evaluator = "openai-codex/gpt-5.5";
  config.merger = "local/scripted-a";
  RegistrySnapshot s = Snapshot({Local(), Anthropic(), Codex()});
  s.current = Local("current-one");
  auto models = AdmitModels(config, s);
  REQUIRE(models.ok());
  CHECK(models->thinking_level == "high");
  CHECK(models->route(Slot::kCandidate3).model.id == "current-one");
  CHECK(models->route(Slot::kEvaluator).model.provider == "openai-codex");
  const nlohmann::json j = ResolvedModelsToJson(*models);
  CHECK(j["thinking_level"] == "high");
  CHECK(j["candidates"].size() == 3);
  CHECK(j["candidates"][1] ==
        nlohmann::json{{"provider", "anthropic"}, {"model", "claude-sonnet-4-5"}});
  CHECK(j["evaluator"] == nlohmann::json{{"provider", "openai-codex"}, {"model", "gpt-5.5"}});
  CHECK(j["candidates"][2]["model"] == "current-one");
}

TEST_CASE("RouteAdmission: every refused slot is named, in slot order, with one hint") {
  ModelsConfig config;
  config.evaluator = "local/missing";
  config.merger = "local/also-missing";
  RegistrySnapshot s = Snapshot({Local()});
  s.current = Local();
  auto models = AdmitModels(config, s);
  REQUIRE_FALSE(models.ok());
  CHECK(models.status().code() == "model_unavailable");
  const std::string& message = models.status().message();
  CHECK_THAT(message, Catch::StartsWith("Evaluator model local/missing is not available"));
  CHECK_THAT(message, Catch::Contains(". Merger model local/also-missing is not available"));
  CHECK_THAT(message, Catch::EndsWith(" Choose other models for them with /fusion-models."));
  CHECK(message.find("Choose another model") == std::string::npos);

  // One bad slot: its text exactly as before.
  config.merger = "$current";
  auto one = AdmitModels(config, s);
  REQUIRE_FALSE(one.ok());
  CHECK_THAT(one.status().message(),
             Catch::StartsWith("Evaluator model local/missing") &&
                 Catch::EndsWith(" Choose another model for it with /fusion-models."));
}

}  // namespace
}  // namespace pi_fusion::config
