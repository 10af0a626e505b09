#include "addon/host_snapshot.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <utility>

#include "addon/js_values.h"
#include "config/pi_models_json.h"
#include "config/provider_overrides.h"
#include "core/error_codes.h"

namespace pi_fusion::addon {
namespace {

std::string StringOf(Napi::Object obj, const char* key) {
  Napi::Value v = obj.Get(key);
  return v.IsString() ? v.As<Napi::String>().Utf8Value() : std::string();
}

int64_t IntOf(Napi::Object obj, const char* key) {
  Napi::Value v = obj.Get(key);
  return v.IsNumber() ? v.As<Napi::Number>().Int64Value() : 0;
}

// Header names set on the model object itself (lowercase).
std::vector<std::string> ModelHeaderNames(Napi::Object model) {
  std::vector<std::string> out;
  Napi::Value headers = model.Get("headers");
  if (!headers.IsObject()) return out;
  Napi::Array names = headers.As<Napi::Object>().GetPropertyNames();
  for (uint32_t i = 0; i < names.Length(); ++i) {
    std::string name = names.Get(i).ToString().Utf8Value();
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.push_back(std::move(name));
  }
  return out;
}

bool Defined(Napi::Object obj, const char* method, const std::string& arg) {
  Napi::Function fn = Method(obj, method);
  if (fn.IsEmpty()) return false;
  Napi::Value v = fn.Call(obj, {Napi::String::New(obj.Env(), arg)});
  return !v.IsUndefined() && !v.IsNull();
}

// getProvider(id).auth.oauth.isSubscription === true (Pi 0.99+; false where the API is absent).
bool OAuthIsSubscription(Napi::Object registry, const std::string& provider) {
  Napi::Function get = Method(registry, "getProvider");
  if (get.IsEmpty()) return false;
  Napi::Value p = get.Call(registry, {Napi::String::New(registry.Env(), provider)});
  if (!p.IsObject()) return false;
  Napi::Value auth = p.As<Napi::Object>().Get("auth");
  if (!auth.IsObject()) return false;
  Napi::Value oauth = auth.As<Napi::Object>().Get("oauth");
  if (!oauth.IsObject()) return false;
  Napi::Value flag = oauth.As<Napi::Object>().Get("isSubscription");
  return flag.IsBoolean() && flag.As<Napi::Boolean>().Value();
}

// model.cost as Pi's catalog (or models.json) prices the route; nullopt unless all four prices
// are finite, non-negative numbers.
std::optional<config::ModelPrices> PricesOf(Napi::Object model) {
  Napi::Value cost = model.Get("cost");
  if (!cost.IsObject()) return std::nullopt;
  Napi::Object prices = cost.As<Napi::Object>();
  config::ModelPrices out;
  for (const auto& [key, field] :
       {std::pair{"input", &out.input}, std::pair{"output", &out.output},
        std::pair{"cacheRead", &out.cache_read}, std::pair{"cacheWrite", &out.cache_write}}) {
    Napi::Value v = prices.Get(key);
    if (!v.IsNumber()) return std::nullopt;
    const double price = v.As<Napi::Number>().DoubleValue();
    if (!std::isfinite(price) || price < 0) return std::nullopt;
    *field = price;
  }
  return out;
}

// Headers on the model or from models.json would change what the registry's credential sends,
// which the route policy refuses for frontier routes.
config::ModelInfo ModelOf(Napi::Object registry, Napi::Object model,
                          const nlohmann::json& models_json) {
  config::ModelInfo out;
  out.provider = StringOf(model, "provider");
  out.id = StringOf(model, "id");
  out.name = StringOf(model, "name");
  out.api = StringOf(model, "api");
  out.base_url = StringOf(model, "baseUrl");
  out.context_window = IntOf(model, "contextWindow");
  out.max_tokens = IntOf(model, "maxTokens");
  out.reasoning = model.Get("reasoning").ToBoolean().Value();
  out.prices = PricesOf(model);
  std::vector<std::string> header_names = ModelHeaderNames(model);
  if (!header_names.empty()) out.header_overrides.push_back("model.headers");
  config::ConfigOverrides configured =
      config::FindConfigOverrides(models_json, out.provider, out.id);
  for (std::string& where : configured.locations) {
    out.header_overrides.push_back("models.json " + where);
  }
  header_names.insert(header_names.end(), configured.header_names.begin(),
                      configured.header_names.end());
  for (const std::string& name : header_names) {
    out.has_auth_header_overrides =
        out.has_auth_header_overrides || config::IsCredentialHeader(name);
  }
  Napi::Function is_oauth = Method(registry, "isUsingOAuth");
  if (!is_oauth.IsEmpty())
    out.is_using_oauth = is_oauth.Call(registry, {model}).ToBoolean().Value();
  out.oauth_is_subscription = OAuthIsSubscription(registry, out.provider);
  out.provider_replaced = Defined(registry, "getRegisteredProviderConfig", out.provider) ||
                          Defined(registry, "getRegisteredNativeProvider", out.provider);
  Napi::Value compat = model.Get("compat");
  if (compat.IsObject()) {
    Napi::Value flag = compat.As<Napi::Object>().Get("supportsLongCacheRetention");
    if (flag.IsBoolean()) out.supports_long_cache_retention = flag.As<Napi::Boolean>().Value();
  }
  return out;
}

std::string EnvValue(const std::vector<std::string>& environment, const std::string& name) {
  const std::string prefix = name + "=";
  for (const std::string& entry : environment) {
    if (entry.rfind(prefix, 0) == 0) return entry.substr(prefix.size());
  }
  return "";
}

std::vector<std::string> Environment(Napi::Object process) {
  std::vector<std::string> out;
  Napi::Object env = process.Get("env").As<Napi::Object>();
  Napi::Array names = env.GetPropertyNames();
  for (uint32_t i = 0; i < names.Length(); ++i) {
    const std::string name = names.Get(i).ToString().Utf8Value();
    Napi::Value value = env.Get(name);
    if (value.IsString()) out.push_back(name + "=" + value.As<Napi::String>().Utf8Value());
  }
  return out;
}

// Pi's getAgentDir(): $PI_CODING_AGENT_DIR with a leading "~" expanded, else ~/.pi/agent; made
// absolute against the process's working directory, as Pi's own file calls would resolve it.
std::string AgentDir(const std::vector<std::string>& environment, Napi::Object process) {
  const std::string home = EnvValue(environment, "HOME");
  std::string dir = EnvValue(environment, "PI_CODING_AGENT_DIR");
  if (dir.empty()) return home + "/.pi/agent";
  if (dir == "~" || dir.rfind("~/", 0) == 0) dir = home + dir.substr(1);
  if (dir.front() != '/') {
    Napi::Function cwd = Method(process, "cwd");
    if (!cwd.IsEmpty()) dir = cwd.Call(process, {}).ToString().Utf8Value() + "/" + dir;
  }
  return dir;
}

}  // namespace

run::HostSnapshot SnapshotHost(Napi::Env env, FileSystem& fs, Napi::Object pi, Napi::Object ctx,
                               const std::string& package_root, const std::string& tool_call_id,
                               bool with_branch) {
  run::HostSnapshot snap;
  Napi::Object process = env.Global().Get("process").As<Napi::Object>();
  snap.cwd = StringOf(ctx, "cwd");
  snap.node_path = StringOf(process, "execPath");
  Napi::Array argv = process.Get("argv").As<Napi::Array>();
  if (argv.Length() > 1) snap.pi_cli_path = argv.Get(1u).ToString().Utf8Value();
  snap.pid = IntOf(process, "pid");
  snap.environment = Environment(process);
  snap.package_root = package_root;
  snap.tool_call_id = tool_call_id;

  snap.agent_dir = AgentDir(snap.environment, process);

  Napi::Function thinking = Method(pi, "getThinkingLevel");
  if (!thinking.IsEmpty()) {
    snap.registry.thinking_level = thinking.Call(pi, {}).ToString().Utf8Value();
  }

  Napi::Value sessions = ctx.Get("sessionManager");
  if (sessions.IsObject()) {
    Napi::Object sm = sessions.As<Napi::Object>();
    Napi::Function id = Method(sm, "getSessionId");
    if (!id.IsEmpty()) snap.session_id = id.Call(sm, {}).ToString().Utf8Value();
    Napi::Function dir = Method(sm, "getSessionDir");
    if (!dir.IsEmpty()) snap.session_dir = dir.Call(sm, {}).ToString().Utf8Value();
    Napi::Function branch = Method(sm, "getBranch");
    if (with_branch && !branch.IsEmpty()) {
      // A branch that cannot be converted stays null; the projection then reports
      // context_capture_failed instead of the host failing.
      Result<nlohmann::json> entries = ToJson(env, branch.Call(sm, {}), kContextCaptureFailed);
      if (entries.ok()) snap.branch = std::move(entries).value();
    }
  }

  Napi::Value registry_value = ctx.Get("modelRegistry");
  if (registry_value.IsObject()) {
    Napi::Object registry = registry_value.As<Napi::Object>();
    const nlohmann::json models_json = config::ReadPiModelsJson(fs, snap.agent_dir);
    // Only models with usable credentials can serve a route.
    Napi::Function available = Method(registry, "getAvailable");
    if (available.IsEmpty()) available = Method(registry, "getAll");
    if (!available.IsEmpty()) {
      Napi::Array models = available.Call(registry, {}).As<Napi::Array>();
      for (uint32_t i = 0; i < models.Length(); ++i) {
        snap.registry.models.push_back(
            ModelOf(registry, models.Get(i).As<Napi::Object>(), models_json));
      }
    }
    Napi::Value current = ctx.Get("model");
    if (current.IsObject())
      snap.registry.current = ModelOf(registry, current.As<Napi::Object>(), models_json);
  }
  return snap;
}

}  // namespace pi_fusion::addon
