// The `execute` functions of the registered tools. JS thread only.
#pragma once

#include <napi.h>

#include "schema/tool_catalog.h"

namespace pi_fusion::addon {

// Returns execute(toolCallId, params, signal, onUpdate, ctx) -> Promise<AgentToolResult> for
// `spec`. REQUIRES: `spec` outlives the environment (the catalog is static).
Napi::Function MakeToolExecutor(Napi::Env env, const schema::ToolSpec& spec);

// Returns prepareArguments(args) -> normalized args for `spec`. Pi calls it before its own schema
// validation, so the model sees the contract's exact texts (unsupported/missing keys, blank
// strings, cross-field rules) instead of the generic validator's; a violation throws an Error
// whose message is the text and whose `code` is the spec's code.
Napi::Function MakeArgumentPreparer(Napi::Env env, const schema::ToolSpec& spec);

}  // namespace pi_fusion::addon
