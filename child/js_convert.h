// Conversions between JS values and the child governor's plain types. JS thread only.
#pragma once

#include <napi.h>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "protocol/frames.h"

namespace pi_fusion::child {

// `value` through the host's JSON.stringify, parsed back as one JSON object. Fails with
// child_runtime_payload_invalid, naming `what`, when stringify throws (cycles, BigInt), yields no
// text (undefined, functions), yields a non-object, or yields text that is not valid UTF-8 JSON
// (escaped lone surrogates).
Result<nlohmann::json> StringifyObject(Napi::Env env, Napi::Value value, const std::string& what);

// Any JSON-able `value` (arrays and scalars too) through JSON.stringify, parsed back; null when it
// has no JSON form (undefined, cycles). For hashing tool arguments and results.
nlohmann::json JsonValueOf(Napi::Env env, Napi::Value value);

// JSON.parse of the canonical text: a fresh plain JS value equal to `value`.
Napi::Value FromJson(Napi::Env env, const nlohmann::json& value);

// obj[key] when it is a string.
std::optional<std::string> StringField(Napi::Object obj, const char* key);

// The route of ctx.model ({provider, id, api}); empty strings where absent.
protocol::Route RouteOfModel(Napi::Value model);

// obj[name] bound to obj, or an empty Function when absent.
Napi::Function Method(Napi::Object obj, const char* name);

// Sets process.exitCode = 1: Pi's print mode leaves a non-zero code it did not set in place.
void FailProcessExit(Napi::Env env);

// Runs `fn` (a tool's result arriving through the dispatcher) as node-addon-api runs a
// thread-safe function's callback: a Napi::Error escaping it becomes the pending JS exception,
// the child's uncaught exception, instead of being dropped as JsDispatcher drops a closure's.
template <typename Fn>
void RunAsJsCallback(Fn&& fn) {
  try {
    fn();
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
}

// Cancels `cancel` when Pi aborts the tool call: `signal` is its AbortSignal (`aborted`,
// addEventListener); anything else is ignored.
void FollowAbortSignal(Napi::Env env, Napi::Value signal, const process::CancelToken& cancel);

}  // namespace pi_fusion::child
