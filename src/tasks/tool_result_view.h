// The view of a Fusion tool's result row (see run_view.h for the shapes fusion-render.ts draws),
// built only from what Pi hands back at render time: the result's `details` and its text. Pi
// keeps both in the session, so a result rendered again after `/reload` or `pi -c` looks as it
// did when it was new. One function per tool, dispatched by tool name in ToolResultView; a failed
// call of any tool is an error note.
//
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace pi_fusion::tasks {

// The view of a tool result, from the result's details and text.
nlohmann::json ToolResultView(std::string_view tool, const nlohmann::json& details,
                              const std::string& text, bool is_error, int64_t now_ms);

}  // namespace pi_fusion::tasks
