#include "addon/js_values.h"

#include "core/json_text.h"
#include "core/terminal_text.h"
#include "napi_util/text_result.h"
#include "views/host_texts.h"

namespace pi_fusion::addon {

Result<nlohmann::json> ToJson(Napi::Env env, Napi::Value value, const std::string& code) {
  if (value.IsUndefined()) return nlohmann::json(nullptr);
  Napi::Value text;
  try {
    Napi::Object json = env.Global().Get("JSON").As<Napi::Object>();
    text = json.Get("stringify").As<Napi::Function>().Call(json, {value});
  } catch (const Napi::Error& e) {
    return Status::Error(code, "the value cannot be serialized as JSON (" + e.Message() + ")");
  }
  if (!text.IsString()) return nlohmann::json(nullptr);
  // Utf8Value is total (V8 writes U+FFFD for unpaired surrogates); the escapes JSON.stringify
  // writes for them are repaired by ParseHostJson.
  return ParseHostJson(text.As<Napi::String>().Utf8Value(), code);
}

Napi::Value FromJson(Napi::Env env, const nlohmann::json& value) {
  Napi::Object json = env.Global().Get("JSON").As<Napi::Object>();
  const std::string text =
      value.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
  return json.Get("parse").As<Napi::Function>().Call(json, {Napi::String::New(env, text)});
}

Napi::Object TextResult(Napi::Env env, const std::string& text, const nlohmann::json& details) {
  return napi_util::TextResult(env, text, FromJson(env, details));
}

Napi::Object ErrorResult(Napi::Env env, const Status& status) {
  nlohmann::json details = {{"error", {{"code", status.code()}, {"message", status.message()}}}};
  Napi::Object result = TextResult(env, views::ToolErrorText(status), details);
  result.Set("isError", true);
  return result;
}

Napi::Function Method(Napi::Object obj, const char* name) {
  Napi::Value fn = obj.Get(name);
  if (!fn.IsFunction()) return Napi::Function();
  return fn.As<Napi::Function>();
}

void WriteStderrLine(Napi::Env env, const std::string& line) {
  Napi::Object stderr_stream =
      env.Global().Get("process").As<Napi::Object>().Get("stderr").As<Napi::Object>();
  Method(stderr_stream, "write")
      .Call(stderr_stream, {Napi::String::New(env, NeutralizeControls(line) + "\n")});
}

void Notify(Napi::Env env, Napi::Object ui, const std::string& text, const std::string& level) {
  Napi::Function notify = Method(ui, "notify");
  if (notify.IsEmpty()) return;
  notify.Call(ui,
              {Napi::String::New(env, NeutralizeControls(text)), Napi::String::New(env, level)});
}

}  // namespace pi_fusion::addon
