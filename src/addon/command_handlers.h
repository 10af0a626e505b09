// The /fusion, /fusion-models and /fusion-resume slash commands. JS thread only.
#pragma once

#include <napi.h>

namespace pi_fusion::addon {

void RegisterCommands(Napi::Env env, Napi::Object pi);

}  // namespace pi_fusion::addon
