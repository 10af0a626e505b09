// Per-environment state of the child binding (Napi instance data; no globals). JS thread only.
#pragma once

#include <napi.h>

#include <cstdint>
#include <memory>

#include "child/core/child_env.h"
#include "child/core/governor.h"
#include "child/core/progress_beat.h"
#include "child/worker_threads.h"
#include "napi_util/js_dispatcher.h"

namespace pi_fusion::child {

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
  // The threads the tools' blocking work runs on (worker_threads.h), for every registration.
  WorkerThreads threads;
};

// REQUIRES: called on the JS thread of `env` after module init.
ChildState& State(Napi::Env env);

// Installs Pi event handlers that drive `State(env).governor` (see handlers.cc).
void RegisterHandlers(Napi::Env env, Napi::Object pi, uint64_t generation);

}  // namespace pi_fusion::child
