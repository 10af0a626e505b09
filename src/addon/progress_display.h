// Live progress of every active run: in the TUI a live view above the editor with one line per
// run (stage, candidates done and failed, elapsed time, each running child's time since its last
// output) and the run's landed candidates, whose answers Pi's expand key shows, plus the hint
// that quitting or reloading Pi cancels them (plain rows where no live view can be drawn); on a
// Pi without widgets one status entry per run. No run's line is ever overwritten or cleared by
// another's. Without a UI (print, json) progress goes to stderr.
// JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include "views/live_view.h"

namespace pi_fusion::addon {

// A run reported `line` (already recorded in the task registry).
void ShowRunProgress(Napi::Env env, const std::string& line);
// A candidate of a run landed (its answer verified): listed in the live view (TUI, and RPC's
// widget requests), a stderr line in print and json mode, and in json and RPC mode also a
// `fusion-candidate` entry with the answer.
void ShowLandedCandidate(Napi::Env env, const views::LandedReport& report);
// Redraws every active run's line from the registry; starts or stops the once-a-second ticker
// that keeps elapsed times moving (unref'd: it never holds Pi open).
void RefreshRunProgress(Napi::Env env);
// A run ended: its cost joins what this Pi process's runs have cost, shown in Pi's footer as a
// status ("fusion: $0.0123"), since Pi's own cost sum counts only the agent's model requests.
void ShowFusionCost(Napi::Env env, double run_cost_usd);
// Clears the lines and the ticker (session shutdown).
void ClearRunProgress(Napi::Env env);

// ctx.ui when the current context has a UI; empty otherwise.
Napi::Object UiOf(Napi::Env env);
// ctx.mode ("tui" | "rpc" | "json" | "print"), derived from hasUI on an older Pi.
std::string ModeOf(Napi::Object ctx);

}  // namespace pi_fusion::addon
