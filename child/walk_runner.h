// The grep and find walks: ripgrep or fd started inside the vetted place (through the walk jail,
// pi-fusion-walk, when there is one) on the child's worker threads, their outcome brought back to
// the JS thread through the child's dispatcher. What a walk's lines mean is the caller's
// (grep_tool.h, file_tools.cc's glob).
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child/file_tool_common.h"
#include "process/supervisor.h"

namespace pi_fusion::child::file_tools {

// One walk (rg or fd) run in the vetted directory on a worker thread; `finish` gets its outcome
// on the JS thread.
using WalkFinish = std::function<void(Napi::Env, const Result<process::ChildOutcome>&)>;

struct WalkJob {
  std::shared_ptr<VettedObject> start;
  std::string call_id;
  process::ChildSpec spec;
  WalkFinish finish;
  Result<process::ChildOutcome> outcome = Status::Error("child_cancelled", "not run");
  std::string protection = "none";  // what the walk jail reported
};

// Runs `job` on the worker threads, stopped when `signal` (an AbortSignal, or undefined) aborts;
// on the JS thread the walk hook hears its protection, then `job->finish` its outcome. Throws a JS
// error when the walk cannot start.
void RunWalk(Napi::Env env, const Shared& s, Napi::Value signal, std::unique_ptr<WalkJob> job);

// The walker's command line: through pi-fusion-walk when there is one. `args` ends with the
// walked file's /proc name for a walk of one file (`start` is then that file).
process::ChildSpec WalkSpec(const Shared& s, std::string executable, std::vector<std::string> args,
                            const VettedObject& start);

// The first of `names` in Pi's agent bin/ directory, then on PATH; "" when there is none.
std::string ToolBinary(const Shared& s, const std::vector<std::string>& names);

// Why a walk failed, or nullopt when its output can be used (a stop at the output cap is a use).
std::optional<std::string> WalkFailure(const Result<process::ChildOutcome>& outcome,
                                       const char* tool, bool exit_one_ok);

}  // namespace pi_fusion::child::file_tools
