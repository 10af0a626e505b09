// The read tool's operations: what Pi's read definition is handed in place of its own file I/O
// (access, detectImageMimeType, readFile, createReadStream), each on a vetted descriptor and
// within the call's read budget (child/core/read_limits.h). JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include "child/file_tool_common.h"

namespace pi_fusion::child::file_tools {

// One read call's operations share its budget (read_limits.h): Pi's read opens the file up to
// three times (sniff, then read or stream).
Napi::Object ReadOperations(Napi::Env env, SharedPtr s, std::string id);

}  // namespace pi_fusion::child::file_tools
