#include "child/js_convert.h"

#include "core/error_codes.h"
#include "core/json_text.h"
#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "protocol/constants.h"

namespace pi_fusion::child {
namespace {

Status NotJsonObject(const std::string& what, const std::string& message) {
  return Status::Error(std::string(kChildRuntimePayloadInvalid),
                       what + " is not one stable JSON object: " + message);
}

Napi::Object JsonObject(Napi::Env env) { return env.Global().Get("JSON").As<Napi::Object>(); }

}  // namespace

Result<nlohmann::json> StringifyObject(Napi::Env env, Napi::Value value, const std::string& what) {
  Napi::Object json = JsonObject(env);
  Napi::Value text;
  try {
    text = json.Get("stringify").As<Napi::Function>().Call(json, {value});
  } catch (const Napi::Error& e) {
    return NotJsonObject(what, TruncateUtf8(e.Message(), 200));
  }
  if (!text.IsString()) return NotJsonObject(what, "JSON.stringify produced no text");
  // Lone surrogates (escaped by JSON.stringify) become U+FFFD instead of failing the child.
  Result<nlohmann::json> parsed =
      ParseHostJson(text.As<Napi::String>().Utf8Value(), std::string(kChildRuntimePayloadInvalid));
  if (!parsed.ok()) return NotJsonObject(what, "its JSON text does not parse as UTF-8 JSON");
  if (!parsed->is_object()) return NotJsonObject(what, "it is not an object");
  return parsed;
}

nlohmann::json JsonValueOf(Napi::Env env, Napi::Value value) {
  Napi::Object json = JsonObject(env);
  Napi::Value text;
  try {
    text = json.Get("stringify").As<Napi::Function>().Call(json, {value});
  } catch (const Napi::Error&) {
    return nullptr;
  }
  if (!text.IsString()) return nullptr;
  nlohmann::json parsed = nlohmann::json::parse(text.As<Napi::String>().Utf8Value(), nullptr,
                                                /*allow_exceptions=*/false);
  return parsed.is_discarded() ? nlohmann::json(nullptr) : parsed;
}

Napi::Value FromJson(Napi::Env env, const nlohmann::json& value) {
  Napi::Object json = JsonObject(env);
  return json.Get("parse").As<Napi::Function>().Call(
      json, {Napi::String::New(env, CanonicalJson(value))});
}

std::optional<std::string> StringField(Napi::Object obj, const char* key) {
  Napi::Value value = obj.Get(key);
  if (!value.IsString()) return std::nullopt;
  return value.As<Napi::String>().Utf8Value();
}

protocol::Route RouteOfModel(Napi::Value model) {
  protocol::Route route;
  if (!model.IsObject()) return route;
  Napi::Object m = model.As<Napi::Object>();
  route.provider = StringField(m, "provider").value_or("");
  route.model = StringField(m, "id").value_or("");
  route.api = StringField(m, "api").value_or("");
  return route;
}

Napi::Function Method(Napi::Object obj, const char* name) {
  Napi::Value fn = obj.Get(name);
  if (!fn.IsFunction()) return Napi::Function();
  return fn.As<Napi::Function>();
}

void FailProcessExit(Napi::Env env) {
  env.Global().Get("process").As<Napi::Object>().Set("exitCode", Napi::Number::New(env, 1));
}

void FollowAbortSignal(Napi::Env env, Napi::Value signal, const process::CancelToken& cancel) {
  if (!signal.IsObject()) return;
  Napi::Object s = signal.As<Napi::Object>();
  if (s.Get("aborted").ToBoolean().Value()) cancel.Cancel();
  Napi::Function add = Method(s, "addEventListener");
  if (add.IsEmpty()) return;
  add.Call(s, {Napi::String::New(env, "abort"),
               Napi::Function::New(env, [cancel](const Napi::CallbackInfo& info) {
                 cancel.Cancel();
                 return info.Env().Undefined();
               })});
}

}  // namespace pi_fusion::child
