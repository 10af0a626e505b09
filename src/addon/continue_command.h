// The /fusion-continue slash command: puts one verified answer of a Fusion run (a candidate by
// slot or letter, or the merged answer) into the conversation as a message the model sees, and
// offers in the TUI to switch Pi's model to the route that wrote a candidate when that route is
// admitted (config/route_admission.h). The person's command only. JS thread only.
#pragma once

#include <napi.h>

namespace pi_fusion::addon {

// handler(args, ctx): `/fusion-continue <run id or prefix> <1-3 | A-C | merged>`. The run is found
// as bg_result finds it (this process's, this session's earlier ones, any of the project's on
// disk) and verified as `pi-fusion show` verifies it. A refusal is told to the person with its
// code; in print and json modes Pi then exits 1.
Napi::Value FusionContinueCommand(const Napi::CallbackInfo& info);

}  // namespace pi_fusion::addon
