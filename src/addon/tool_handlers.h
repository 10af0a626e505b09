// The `execute` functions of the registered tools. JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include "pi_fusion/status.h"
#include "schema/tool_catalog.h"
#include "tasks/task_registry.h"

namespace pi_fusion::addon {

// Returns execute(toolCallId, params, signal, onUpdate, ctx) -> Promise<AgentToolResult> for
// `spec`. REQUIRES: `spec` outlives the environment (the catalog is static).
Napi::Function MakeToolExecutor(Napi::Env env, const schema::ToolSpec& spec);

// Returns prepareArguments(args) -> normalized args for `spec`. Pi calls it before its own schema
// validation, so the model sees the contract's exact texts (unsupported/missing keys, blank
// strings, cross-field rules) instead of the generic validator's; a violation throws an Error
// whose message is the text and whose `code` is the spec's code.
Napi::Function MakeArgumentPreparer(Napi::Env env, const schema::ToolSpec& spec);

// The run bg_result would read for `id` (an id or a prefix): this process's, this session's from
// earlier processes, else any run in this project's run store; an abandoned run found on disk is
// finalized as host_ended first. The registry's lookup error when none is known.
Result<tasks::TaskInfo> ResolveRunById(Napi::Env env, Napi::Object ctx, const std::string& id);

}  // namespace pi_fusion::addon
