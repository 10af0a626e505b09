// What the candidates' file tools (file_tools.h) share inside the child library: one
// registration's setup and Pi's functions, and the steps every tool's operations take: read a
// string argument, vet a path through the wall, refuse (journaled) what the wall refuses. The
// tools' pieces (read_operations.h, walk_runner.h, grep_tool.h, file_tools.cc) build on these. JS
// thread only.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "child/core/file_wall.h"
#include "child/file_tools.h"
#include "pi_fusion/status.h"

namespace pi_fusion::child::file_tools {

// What every tool of one registration shares. Pi's functions are kept for the process's life.
struct Shared {
  FileToolsSetup setup;
  const Napi::ObjectReference* pi_tools = nullptr;  // owned by ChildState (per environment)
};
using SharedPtr = std::shared_ptr<Shared>;

// Pi's function `name` from the tools it handed over; a JS error when this Pi has none.
Napi::Function PiFunction(const Shared& s, const char* name);

// The refusal: journaled through the hook, then thrown for Pi to hand the model.
[[noreturn]] void Refuse(Napi::Env env, const Shared& s, const std::string& call_id,
                         const Status& status);

// The call's `i`th argument when it is a string, else "".
std::string Arg(const Napi::CallbackInfo& info, size_t i);

// `path` vetted by the wall for `want`, or the refusal thrown (journaled).
VettedObject VetOrThrow(Napi::Env env, const Shared& s, const std::string& call_id,
                        const std::string& path, WallWant want);

}  // namespace pi_fusion::child::file_tools
