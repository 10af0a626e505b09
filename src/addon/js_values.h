// Conversions between JS values and the core's plain types. JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::addon {

// JSON round trip through the host's own JSON object: exact for every value a tool call can
// carry (Pi's arguments are parsed JSON). Total: a lone UTF-16 surrogate becomes U+FFFD, and a
// value JSON.stringify refuses (cyclic, BigInt) is an error with `code`; never throws.
Result<nlohmann::json> ToJson(Napi::Env env, Napi::Value value, const std::string& code);
// Invalid UTF-8 in `value` becomes U+FFFD rather than throwing.
Napi::Value FromJson(Napi::Env env, const nlohmann::json& value);

// An AgentToolResult: {content:[{type:"text",text}], details} (napi_util/text_result.h), with
// `details` converted as FromJson converts.
Napi::Object TextResult(Napi::Env env, const std::string& text, const nlohmann::json& details);

// A tool error the model sees: the message, then the spec's code on its own line; details carry
// {error:{code,message}} for programs.
Napi::Object ErrorResult(Napi::Env env, const Status& status);

// obj[name] as a function bound to obj, or an empty Function when absent.
Napi::Function Method(Napi::Object obj, const char* name);

// What the plugin shows a person leaves through these (and the render calls of renderers.cc), so
// that model, page and run-directory text has its terminal controls neutralized on the way out
// (core/terminal_text.h); the texts the agent receives are never changed here.

// Writes one line to the host's stderr (Pi routes extension output there in print mode).
void WriteStderrLine(Napi::Env env, const std::string& line);

// ui.notify(text, level): a toast in the TUI (RPC forwards it to the client).
void Notify(Napi::Env env, Napi::Object ui, const std::string& text, const std::string& level);

}  // namespace pi_fusion::addon
