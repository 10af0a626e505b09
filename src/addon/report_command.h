// The /fusion-report slash command: writes a run's HTML report by running this build's own
// `pi-fusion report` (the renderer and its Markdown library live only in that executable, never in
// this plugin: see docs/architecture.md, "Linking") and shows the file's path. JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include "pi_fusion/status.h"

namespace pi_fusion::addon {

// handler(args, ctx): `/fusion-report <id or prefix>` reports that run (found as bg_result finds
// it); without one, this project's newest run. The path goes to the person (a toast in the TUI,
// with how to open it; stderr in print mode); a failure is an error, and exit 1 outside the TUI.
Napi::Value FusionReportCommand(const Napi::CallbackInfo& info);

// The pi-fusion executable that belongs to the plugin at `addon_path`: beside it (the npm
// package's prebuilds folder), else in the build tree's bin/ beside its lib/. Never PATH or the
// environment. config_invalid naming both places when neither is an executable file.
Result<std::string> PiFusionBeside(const std::string& addon_path);

}  // namespace pi_fusion::addon
