// The trace a quit leaves in the TUI: the runs a quit cancelled are counted as their ends arrive,
// each /fusion run's end is appended to the session before Pi drops it (so `pi -c` shows its
// row), and once the process exits — after Pi has stopped the TUI and restored the screen — the
// shell gets one line per cancelled run with its resume command (views::QuitTraceLines). Pi's
// ctx.ui no longer draws anything by then; the terminal's stderr still does. JS thread only.
#pragma once

#include <napi.h>

#include "views/lifecycle_texts.h"

namespace pi_fusion::addon {

// A run ended: while Pi quits, a cancelled run is remembered for the trace.
void RecordQuitEnd(Napi::Env env, const views::TerminalReport& terminal);

// session_shutdown for a quit in the TUI, after the runs were stopped and their workers joined:
// delivers their ends now (the registration still holds Pi) and has the trace written at exit.
void LeaveQuitTrace(Napi::Env env);

}  // namespace pi_fusion::addon
