// What the slash commands share: telling the person, promise plumbing, and launching a run from a
// command with its answer written to stdout in print mode. JS thread only.
#pragma once

#include <napi.h>

#include <functional>
#include <string>

#include "run/run_request.h"
#include "views/lifecycle_texts.h"

namespace pi_fusion::addon {

bool HasUI(Napi::Object ctx);

// What a person typed for a command (its argument, or an editor's text): a JS string with Unicode
// space trimmed from both ends; "" for anything else (no argument, a cancelled editor).
std::string TypedText(Napi::Value value);

// Tells the person at the keyboard: a toast in the TUI, a stderr line in print mode.
void Tell(Napi::Env env, Napi::Object ctx, const std::string& message, const char* level);

// Sets process.exitCode = 1: print and json modes end non-zero.
void FailProcess(Napi::Env env);

// An already resolved promise (a command that has nothing to wait for).
Napi::Value Resolved(Napi::Env env);

// promise.then(fn): fn receives the settled value on the JS thread.
Napi::Value Then(Napi::Env env, Napi::Value promise,
                 std::function<Napi::Value(Napi::Env, Napi::Value)> fn);

// Waits for the agent to be idle (the contract: waitForIdle before a launch), then returns
// `start(env, ctx)`.
Napi::Value WhenIdle(Napi::Env env, Napi::Object ctx,
                     std::function<Napi::Value(Napi::Env, Napi::Object)> start);

// The person's notice once a command's run started.
using StartedText = std::function<std::string(const views::LaunchReport&)>;

// Launches `run` (its host snapshot, request and source filled by the caller) for a command: the
// launch notice (`started`) or the preflight failure is told to the person; in print mode the
// command waits for the run and writes the verified answer to stdout (non-zero exit on failure),
// in json mode it waits and exits non-zero on failure, in the TUI it returns at the launch.
Napi::Value LaunchFromCommand(Napi::Env env, Napi::Object ctx, run::RunRequest run,
                              StartedText started);

}  // namespace pi_fusion::addon
