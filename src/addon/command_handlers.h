// The /fusion, /fusion-models, /fusion-resume, /fusion-report and /fusion-continue slash commands.
// JS thread only.
#pragma once

#include <napi.h>

namespace pi_fusion::addon {

void RegisterCommands(Napi::Env env, Napi::Object pi);

}  // namespace pi_fusion::addon
