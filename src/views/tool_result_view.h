// The view of a Fusion tool's result row (see run_view.h for the shapes fusion-render.ts draws),
// built from what Pi hands back at render time: the result's `details` and its text. Pi keeps
// both in the session, so a result rendered again after `/reload` or `pi -c` looks as it did when
// it was new — except a launch row, which also says whether its run has ended since. One function
// per tool, dispatched by tool name in ToolResultView; a failed call of any tool is an error note.
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tasks/task_registry.h"

namespace pi_fusion::views {

// The view of a tool result, from the result's details and text. `ended` is the run a launch
// receipt speaks of when it has ended since (tasks/launched_runs.h): the launch row then says
// how it ended instead of "started in the background".
nlohmann::json ToolResultView(std::string_view tool, const nlohmann::json& details,
                              const std::string& text, bool is_error, int64_t now_ms,
                              const tasks::TaskInfo* ended = nullptr);

}  // namespace pi_fusion::views
