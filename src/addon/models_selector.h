// /fusion-models in the TUI: hands the native selector (config/selector.h) to the TUI module the
// loader passed in (extensions/fusion-models-ui.ts) and tells the outcome. JS thread only.
#pragma once

#include <napi.h>

namespace pi_fusion::addon {

// Shows the selector for the command context `ctx` (REQUIRES: ctx.mode is "tui"). The promise
// settles when the selector closes.
Napi::Value ShowModelsSelector(Napi::Env env, Napi::Object ctx);

}  // namespace pi_fusion::addon
