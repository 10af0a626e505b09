// Copies what a Fusion run needs from Pi's JS objects into a HostSnapshot. JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include "core/file_system.h"
#include "run/run_request.h"

namespace pi_fusion::addon {

// `ctx` is the tool's ExtensionContext (or a command's); `pi` the extension API. Missing host
// features leave fields empty rather than throwing; the core reports what it cannot use.
// `with_branch` copies the current session branch (session-projection workflows only). Pi's
// models.json is read through `fs` (config/pi_models_json.h).
run::HostSnapshot SnapshotHost(Napi::Env env, FileSystem& fs, Napi::Object pi, Napi::Object ctx,
                               const std::string& package_root, const std::string& tool_call_id,
                               bool with_branch);

}  // namespace pi_fusion::addon
