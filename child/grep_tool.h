// The grep tool's execute: ripgrep walks the vetted place (walk_runner.h), the wall filters every
// line it reports (child/core/grep_filter.h), and the lines are formatted as Pi's grep formats
// them, with Pi's own truncation helpers (child/core/grep_output.h). JS thread only.
#pragma once

#include <napi.h>

#include "child/file_tool_common.h"

namespace pi_fusion::child::file_tools {

// Pi's grep execute(toolCallId, params, signal): a promise of Pi's grep tool result, or of the
// refusal or walk failure.
Napi::Value GrepExecute(const Napi::CallbackInfo& info, SharedPtr s);

}  // namespace pi_fusion::child::file_tools
