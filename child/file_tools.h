// The candidates' file tools (read, grep, find, ls), registered over Pi's built-ins so that every
// file they open goes through the FileWall (child/core/file_wall.h) at the moment it is used.
//
// read, ls and find are Pi's own tool definitions (createReadToolDefinition, …, handed over by
// extensions/fusion-child.ts) built per call with operations whose I/O runs on vetted
// descriptors: same arguments, same output, same rendering. find's `glob` operation and grep run
// ripgrep and fd ourselves, started inside the vetted directory, with the protected places
// excluded and every listed path filtered again (child/core/walk_tools.h); grep formats its lines
// as Pi's grep does, with Pi's own truncation helpers. JS thread only, except the walks.
//
// file_tools.cc registers the tools and holds ls's and find's operations; read_operations.h holds
// read's, walk_runner.h runs the walks, grep_tool.h is grep's execute, and file_tool_common.h what
// they all share.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "child/core/file_wall.h"

namespace pi_fusion::child {

// Called on the JS thread when the wall refuses a call: its tool call id and the refusal code.
using RefusalHook = std::function<void(const std::string& call_id, const std::string& code)>;
// Called on the JS thread after a grep or find walk: its call id and which kernel protections
// held for it (src/process/walk_jail.h's names: "namespace+landlock", …, "none").
using WalkHook = std::function<void(const std::string& call_id, const std::string& protection)>;

struct FileToolsSetup {
  std::shared_ptr<const FileWall> wall;
  std::vector<std::string> tools;  // which of read, grep, find, ls to register
  std::string home;                // for "~" in paths, as Pi expands it
  std::string agent_dir;           // Pi's agent directory: its bin/ holds Pi's rg and fd
  RefusalHook on_refusal;
  // pi-fusion-walk, which runs ripgrep and fd in the walk jail (docs/cli/walk.md); empty when it
  // cannot be found (the walkers then run directly, protection "none").
  std::string walk_helper;
  WalkHook on_walk;
};

// Registers the file tools in `setup.tools` with `pi.registerTool`. `pi_tools` holds Pi's
// factories and helpers (createReadToolDefinition, createLsToolDefinition,
// createFindToolDefinition, createGrepToolDefinition, truncateHead, truncateLine, formatSize).
// Throws a JS error when one is missing: a candidate never runs Pi's unwalled tools.
void RegisterFileTools(Napi::Env env, Napi::Object pi, Napi::Object pi_tools, FileToolsSetup setup);

}  // namespace pi_fusion::child
