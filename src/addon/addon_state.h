// Per-environment state of the host binding (Napi instance data; no globals). JS thread only,
// except where a member says otherwise.
#pragma once

#include <napi.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "host/kill_waits.h"
#include "napi_util/js_dispatcher.h"
#include "process/cancel_token.h"
#include "run/warm_pool.h"
#include "tasks/launched_runs.h"
#include "tasks/task_registry.h"
#include "views/lifecycle_texts.h"
#include "views/live_view.h"
#include "views/resume_texts.h"

namespace pi_fusion::addon {

// A launch from its start until its end is delivered (or its preflight failure is). Its callbacks
// hold JS handles, so they live here, on the JS thread, and the worker knows only the launch id.
struct PendingLaunch {
  std::function<void(Napi::Env, const views::LaunchReport&)> on_launch;
  std::function<void(Napi::Env, const views::TerminalReport&)> on_terminal;
  process::CancelToken cancel;  // exists before preflight starts
};

// How long a child stopped because the session ends gets between SIGTERM and SIGKILL: quitting
// returns promptly (bg_kill keeps the child's full grace).
inline constexpr std::chrono::milliseconds kQuitStopGrace{1000};

struct AddonState {
  AddonState() = default;
  // Cancels every run and joins its worker thread: nothing outlives the environment.
  ~AddonState();

  // The `pi` object of the live registration; empty before register() and after
  // session_shutdown, so a /reload (new `pi`, same loaded library) registers afresh while a
  // second register() with the same `pi` is a no-op.
  Napi::ObjectReference pi;
  // Counts registrations; lifecycle handlers remember theirs.
  uint64_t generation = 0;
  // Package root (the folder holding extensions/ and build/), from the loader.
  std::string package_root;
  // extensions/fusion-models-ui.ts showModelsSelector(ctx, selector), from the loader.
  Napi::FunctionReference show_models_selector;
  // extensions/fusion.ts runProgram(file, args) (no shell; /fusion-report runs `pi-fusion report`
  // with it), and where this library was loaded from (pi-fusion lives beside it), from the loader.
  Napi::FunctionReference run_program;
  std::string addon_path;
  // The newest context seen (tool, command or session event): where notifications go.
  Napi::ObjectReference ui_ctx;

  // extensions/fusion-render.ts, when the loader could load it (empty: plain notifications).
  Napi::ObjectReference render;
  // Whether this registration's Pi renders run entries (it offers registerEntryRenderer); a
  // TUI without it gets the plain notification instead of an entry nothing would show.
  bool run_entry_renders = false;
  // The interval that keeps elapsed times moving while runs are active (empty when idle), and
  // the per-run status keys shown on a Pi without widgets.
  Napi::Reference<Napi::Value> ticker;
  std::set<std::string> status_keys;
  // What the runs that ended in this registration cost, in US dollars (the footer's fusion status).
  double runs_cost_usd = 0;
  // The widget's rows as last set (empty: cleared), valid while widget_synced. An identical
  // redraw is not sent again: in RPC mode every setWidget is a frame to the client.
  std::vector<std::string> widget_rows;
  bool widget_synced = false;
  // The TUI's live view as last drawn (its JSON; "" when it was rows or nothing), and each active
  // run's landed candidates by run id, answers included (views/live_view.h): the person's only.
  std::string widget_view;
  std::map<std::string, std::vector<views::LandedReport>> landed;
  // Terminal notices that arrived after the registration they belonged to ended (a /reload
  // cancels its runs): shown by the next session_start.
  std::vector<std::string> carried_notices;

  std::unique_ptr<napi_util::JsDispatcher> dispatcher;
  // Shared with worker threads, which report progress and terminal states (thread-safe).
  std::shared_ptr<tasks::TaskRegistry> tasks = std::make_shared<tasks::TaskRegistry>();
  // Candidate processes kept warm between runs (policy.keep_warm_seconds). Thread-safe; workers
  // use it through their seams, and it is emptied when Pi quits and when the state goes.
  std::shared_ptr<run::WarmPool> warm_pool = std::make_shared<run::WarmPool>();
  // The worker thread of each launch, by launch id. A worker's last act posts its own reaping, so
  // it is joined and dropped here as it ends (run_launcher.cc); StopAllRuns joins the rest.
  std::map<uint64_t, std::thread> workers;
  // Whether the run of a launch row has ended, for the rows Pi renders again (renderers.cc).
  tasks::LaunchedRuns launched_runs;
  // bg_kill calls waiting for the runs they cancelled: answered by the run's terminal event.
  host::KillWaits kill_waits;
  // Every launch not yet delivered, by id; a worker posts its reports under its id.
  std::map<uint64_t, PendingLaunch> launches;
  uint64_t last_launch_id = 0;

  // Print mode: agent_before_settle waits here until no run is active, then wakes the agent
  // with the terminal notices of tool-launched runs.
  std::vector<Napi::Promise::Deferred> settle_waiters;
  std::vector<std::string> pending_wakes;
  // Pi before 0.87.0 (no agent_before_settle): agent_settled handlers held until the runs they
  // woke the agent for have settled too, so print mode prints that run's answer.
  std::vector<Napi::Promise::Deferred> woken_waiters;

  // The last SIGTERM or SIGHUP Pi received ("" when none): a quit it causes was asked by that
  // signal. The recording listeners are installed once per process.
  std::string shutdown_signal;
  bool signal_listeners_installed = false;
  // Pi is quitting (a quit signal arrived, or session_shutdown for a quit): the runs' ends wake
  // no agent for another turn.
  bool quitting = false;
  // The runs a quit cancelled, for the trace the shell shows once Pi has exited (quit_trace.h),
  // and whether the exit listener that writes it is installed.
  std::vector<views::QuitCancelledRun> quit_cancelled;
  bool quit_trace_installed = false;

  // Cancels every launch — in preflight or running — with the quit grace (saying who asked),
  // without waiting. Safe to call more than once.
  void CancelAllRuns(tasks::CancelSource source);
  // CancelAllRuns, then joins all workers still held.
  void StopAllRuns(tasks::CancelSource source = tasks::CancelSource::kUnknown);
};

// REQUIRES: called on the JS thread of `env` after module init.
AddonState& State(Napi::Env env);

}  // namespace pi_fusion::addon
