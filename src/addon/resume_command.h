// The /fusion-resume slash command: resumes a failed, cancelled or host_ended run from its
// verified stages as a new run (store/resumability.h). The person's command only: no tool starts
// a resume, the agent may only suggest it. JS thread only.
#pragma once

#include <napi.h>

namespace pi_fusion::addon {

// handler(args, ctx): `/fusion-resume <id or prefix>` resumes that run; without one, the TUI
// offers a picker of this project's resumable runs (newest first) and the other modes print the
// usage with that list and exit non-zero. Print mode then behaves as /fusion does.
Napi::Value FusionResumeCommand(const Napi::CallbackInfo& info);

}  // namespace pi_fusion::addon
