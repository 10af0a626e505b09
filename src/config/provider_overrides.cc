#include "config/provider_overrides.h"

#include <array>

namespace pi_fusion::config {
namespace {

constexpr std::array<std::string_view, 5> kCredentialHeaders = {
    "authorization", "x-api-key", "api-key", "proxy-authorization", "cookie"};

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

const nlohmann::json* Member(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(key));
  return it == object.end() ? nullptr : &*it;
}

// Records the headers that one models.json object (a provider, a model override or a model
// definition) adds.
void Collect(const nlohmann::json& entry, const std::string& path, ConfigOverrides& out) {
  if (const nlohmann::json* headers = Member(entry, "headers");
      headers != nullptr && headers->is_object() && !headers->empty()) {
    out.locations.push_back(path + ".headers");
    for (const auto& [name, value] : headers->items()) out.header_names.push_back(Lower(name));
  }
}

}  // namespace

nlohmann::json ParseModelsJson(std::string_view text) {
  if (text.empty()) return nlohmann::json::object();
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
}

ConfigOverrides FindConfigOverrides(const nlohmann::json& models_json, std::string_view provider,
                                    std::string_view model_id) {
  ConfigOverrides out;
  if (models_json.is_discarded()) {
    out.locations.push_back("models.json (does not parse)");
    return out;
  }
  const nlohmann::json* providers = Member(models_json, "providers");
  const nlohmann::json* entry = providers ? Member(*providers, provider) : nullptr;
  if (entry == nullptr || !entry->is_object()) return out;
  const std::string path = "providers." + std::string(provider);
  Collect(*entry, path, out);
  // authHeader: true makes Pi send the key as an Authorization header of its own making.
  if (const nlohmann::json* auth = Member(*entry, "authHeader");
      auth != nullptr && auth->is_boolean() && auth->get<bool>()) {
    out.locations.push_back(path + ".authHeader");
  }
  if (const nlohmann::json* overrides = Member(*entry, "modelOverrides")) {
    if (const nlohmann::json* one = Member(*overrides, model_id)) {
      Collect(*one, path + ".modelOverrides." + std::string(model_id), out);
    }
  }
  if (const nlohmann::json* models = Member(*entry, "models"); models && models->is_array()) {
    for (const nlohmann::json& model : *models) {
      const nlohmann::json* id = Member(model, "id");
      if (id != nullptr && id->is_string() && id->get<std::string>() == model_id) {
        Collect(model, path + ".models[" + std::string(model_id) + "]", out);
      }
    }
  }
  return out;
}

bool IsCredentialHeader(std::string_view name) {
  const std::string lower = Lower(name);
  for (std::string_view header : kCredentialHeaders) {
    if (lower == header) return true;
  }
  return false;
}

}  // namespace pi_fusion::config
