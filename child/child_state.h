// Per-environment state of the child binding (Napi instance data; no globals). JS thread only.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child/core/child_env.h"
#include "child/core/governor.h"
#include "child/core/progress_beat.h"
#include "child/core/task_mode.h"
#include "child/worker_threads.h"
#include "napi_util/js_dispatcher.h"

namespace pi_fusion::child {

// The task of a pooled child's live registration (docs/protocol.md, "Pooled children").
struct PooledTask {
  std::string task_id;
  // The start line is written: the task's tools are set and its governor may act. Until then
  // every provider request and tool call is refused.
  bool started = false;
  bool ended = false;  // the end line is written
  // The child would have failed its exit (process.exitCode = 1 in a cold child).
  bool failed = false;
  // The stop reason of the task's last message when that is an assistant message.
  std::optional<std::string> final_stop_reason;
  std::vector<std::string> tools;  // the task's PI_FUSION_TOOLS, for pi.setActiveTools
};

struct ChildState {
  // Cancels and joins the tools' threads, then closes the dispatcher: no thread is left to post
  // to a closed one.
  ~ChildState();

  // The `pi` of the live registration; a second register() with the same object is a no-op.
  Napi::ObjectReference pi;
  // Counts registrations; handlers act only for the registration that installed them.
  uint64_t generation = 0;
  std::unique_ptr<ChildEnv> env;
  std::unique_ptr<ChildGovernor> governor;
  // Progress frames for the parent's stall watchdog (progress_beat.h); set with `governor`.
  std::unique_ptr<ProgressBeat> progress;
  // Pi's tool factories and helpers for the walled file tools (file_tools.h).
  Napi::ObjectReference pi_tools;
  // The inherited first-request descriptor belongs to the first registration only: a later one
  // (a reload) must not write to or close whatever now has that number.
  bool request_signal_taken = false;
  // Whether the child has said that its walkers run without kernel protection (once only).
  bool walk_unprotected_said = false;
  // Brings the tools' walks and fetches back to the JS thread, holding Node's event loop open
  // while one runs (the host plugin's dispatcher, napi_util/js_dispatcher.h). Set at module init.
  std::unique_ptr<napi_util::JsDispatcher> dispatcher;
  // Pooled mode (PI_FUSION_TASK_FD set): the task pipe's reader, and the task of the live
  // registration (none at the idle registration of the process's start).
  std::optional<TaskRecordReader> task_reader;
  std::optional<PooledTask> task;
  // The threads the tools' blocking work runs on (worker_threads.h), for every registration.
  WorkerThreads threads;
};

// REQUIRES: called on the JS thread of `env` after module init.
ChildState& State(Napi::Env env);

// Installs Pi event handlers that drive `State(env).governor` (see handlers.cc). In pooled mode
// they refuse every provider request and tool call while the registration has no started task,
// and a task's handlers write its start and end lines.
void RegisterHandlers(Napi::Env env, Napi::Object pi, uint64_t generation);

// What a cold child does with process.exitCode = 1: in pooled mode the task's end line carries
// it instead (the process outlives the task).
void FailExit(Napi::Env env);

}  // namespace pi_fusion::child
