// The Node-API helpers both bindings share: the host plugin's (src/addon) and the child
// library's (child/). Header-only, so each addon compiles it against its own napi.h and no core
// library can link it; the layer table lets only those two folders include it.
//
// JS thread only.
#pragma once

#include <napi.h>

#include <string>

namespace pi_fusion::napi_util {

// A tool result as Pi hands it to the model (Pi's AgentToolResult):
// {content: [{type: "text", text}], details}. `details` is stored as given (undefined: none).
inline Napi::Object TextResult(Napi::Env env, const std::string& text, Napi::Value details) {
  Napi::Object block = Napi::Object::New(env);
  block.Set("type", "text");
  block.Set("text", text);
  Napi::Array content = Napi::Array::New(env, 1);
  content.Set(0u, block);
  Napi::Object result = Napi::Object::New(env);
  result.Set("content", content);
  result.Set("details", details);
  return result;
}

}  // namespace pi_fusion::napi_util
