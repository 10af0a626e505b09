// register(pi, options): registers Fusion's tools, commands and lifecycle handlers with Pi.
// Idempotent for one `pi`; after session_shutdown (quit or /reload) the next call registers on
// the new `pi`. JS thread only.
#pragma once

#include <napi.h>

namespace pi_fusion::addon {

Napi::Value Register(const Napi::CallbackInfo& info);

}  // namespace pi_fusion::addon
