// Starts a Fusion run from a tool call or /fusion: preflight on a worker thread (the receipt is
// returned only after it), then the run itself, with progress and the terminal state delivered
// back on the JS thread. JS thread only.
#pragma once

#include <napi.h>

#include <functional>
#include <string>

#include "run/run_request.h"
#include "tasks/task_registry.h"
#include "views/lifecycle_texts.h"

namespace pi_fusion::addon {

using Launch = views::LaunchReport;
using Terminal = views::TerminalReport;

using LaunchCallback = std::function<void(Napi::Env, const Launch&)>;
using TerminalCallback = std::function<void(Napi::Env, const Terminal&)>;

// Runs `request` in the background (host::RunLifecycle on a thread of its own). `on_launch` fires
// once preflight has finished (durably, with the task registered) or failed; `on_terminal` once
// the run has ended, after the task's terminal state is recorded. Both run on the JS thread, and
// both stay there: the callbacks (and any JS handle they hold) are kept in the addon state and
// never copied to, used on or destroyed on the worker.
void LaunchRun(Napi::Env env, run::RunRequest request, LaunchCallback on_launch,
               TerminalCallback on_terminal);

// Delivers a terminal state to the person and, for tool launches, to the agent — except a run
// the agent itself cancelled with bg_kill, which does not wake it again.
void DeliverTerminal(Napi::Env env, const Terminal& terminal, bool wake_agent);

// agent_before_settle without a UI (print, json): a promise that resolves once no run is active,
// with {entries:[terminal notices], continue:true} when tool-launched runs must wake the agent.
Napi::Value WaitForRunsBeforeSettle(Napi::Env env);
// Resolves the held agent_before_settle waiters once no run is active (with the pending wakes).
void ResolveSettleWaiters(Napi::Env env);

}  // namespace pi_fusion::addon
