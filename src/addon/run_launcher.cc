#include "addon/run_launcher.h"

#include <chrono>
#include <future>
#include <memory>

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "addon/progress_display.h"
#include "addon/quit_trace.h"
#include "addon/renderers.h"
#include "core/terminal_text.h"
#include "host/host_events.h"
#include "host/run_lifecycle.h"
#include "views/lifecycle_texts.h"

namespace pi_fusion::addon {
namespace {

// The lifecycle's sink on the worker: every report becomes a closure for the JS thread, which
// finds the launch's callbacks by id in the addon state. Nothing JS is held here.
class DispatchingSink : public host::LifecycleSink {
 public:
  DispatchingSink(napi_util::JsDispatcher* dispatcher, uint64_t launch_id,
                  process::CancelToken cancel)
      : dispatcher_(dispatcher), launch_id_(launch_id), cancel_(std::move(cancel)) {}

  void Launched(const Launch& launch) override {
    // The no-child-yet barrier: wait until the JS thread has handed the receipt to Pi (or the
    // closure was dropped with the environment, which breaks the promise, or the session ended).
    auto handed = std::make_shared<std::promise<void>>();
    std::future<void> done = handed->get_future();
    const bool posted = dispatcher_->Post([id = launch_id_, launch, handed](Napi::Env env) {
      DeliverLaunch(env, id, launch);
      handed->set_value();
    });
    if (!posted || !launch.ok) return;
    while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      if (cancel_.IsCancelled()) return;
    }
  }

  void Progress(const std::string& line) override {
    dispatcher_->Post([line](Napi::Env env) { ShowRunProgress(env, line); });
  }

  void CandidateLanded(const views::LandedReport& report) override {
    dispatcher_->Post([report](Napi::Env env) { ShowLandedCandidate(env, report); });
  }

  void Ended(const Terminal& terminal) override {
    dispatcher_->Post(
        [id = launch_id_, terminal](Napi::Env env) { DeliverEnd(env, id, terminal); });
  }

 private:
  static void DeliverLaunch(Napi::Env env, uint64_t id, const Launch& launch) {
    AddonState& state = State(env);
    auto it = state.launches.find(id);
    if (it == state.launches.end()) return;
    LaunchCallback on_launch = it->second.on_launch;
    if (!launch.ok) FinishLaunch(env, id);
    on_launch(env, launch);
  }

  static void DeliverEnd(Napi::Env env, uint64_t id, const Terminal& terminal) {
    AddonState& state = State(env);
    RecordQuitEnd(env, terminal);
    if (auto it = state.launches.find(id); it != state.launches.end()) {
      TerminalCallback on_terminal = it->second.on_terminal;
      FinishLaunch(env, id);
      on_terminal(env, terminal);
      ResolveSettleWaiters(env);
    }
    // The task's terminal state is recorded before this event is posted: a bg_kill waiting for
    // the run answers now.
    state.kill_waits.RunEnded(terminal.run_id, *state.tasks);
  }

  // The launch is over: its callbacks are dropped on the JS thread, and the event loop no longer
  // has to stay alive for it.
  static void FinishLaunch(Napi::Env env, uint64_t id) {
    AddonState& state = State(env);
    state.launches.erase(id);
    state.dispatcher->Release(env);
  }

  napi_util::JsDispatcher* dispatcher_;
  uint64_t launch_id_;
  process::CancelToken cancel_;
};

// Joins and drops the worker of launch `id`, which has posted this as its last act: the join
// waits only for the thread to return. Nothing when shutdown joined it first.
void ReapWorker(Napi::Env env, uint64_t id) {
  AddonState& state = State(env);
  auto it = state.workers.find(id);
  if (it == state.workers.end()) return;
  if (it->second.joinable()) it->second.join();
  state.workers.erase(it);
}

// The worker: the whole lifecycle of one launch. Owns nothing JS; talks through `dispatcher`.
void RunWorker(napi_util::JsDispatcher* dispatcher, std::shared_ptr<tasks::TaskRegistry> tasks,
               std::shared_ptr<run::WarmPool> pool, run::RunRequest request,
               process::CancelToken cancel, uint64_t launch_id) {
  {
    DispatchingSink sink(dispatcher, launch_id, cancel);
    run::RunSeams seams;
    seams.pool = pool.get();
    host::RunLifecycle(std::move(request), seams, *tasks, cancel, sink);
  }
  // Last: the JS thread reaps this thread, so finished workers do not pile up until shutdown. A
  // closed dispatcher (the environment is going away) drops it; the teardown joins every worker.
  dispatcher->Post([launch_id](Napi::Env env) { ReapWorker(env, launch_id); });
}

}  // namespace

void ResolveSettleWaiters(Napi::Env env) {
  AddonState& state = State(env);
  if (!state.launches.empty() || state.settle_waiters.empty()) return;
  Napi::Value result = env.Undefined();
  if (!state.pending_wakes.empty()) {
    Napi::Array entries = Napi::Array::New(env);
    for (const std::string& text : state.pending_wakes) {
      Napi::Object entry = Napi::Object::New(env);
      entry.Set("type", "custom_message");
      entry.Set("customType", kTaskMessageType);
      entry.Set("content", NeutralizeControls(text));  // Pi draws it as it is (below)
      entry.Set("display", true);
      entries.Set(entries.Length(), entry);
    }
    Napi::Object value = Napi::Object::New(env);
    value.Set("entries", entries);
    value.Set("continue", true);
    result = value;
    state.pending_wakes.clear();
  }
  std::vector<Napi::Promise::Deferred> waiters = std::move(state.settle_waiters);
  state.settle_waiters.clear();
  for (Napi::Promise::Deferred& waiter : waiters) waiter.Resolve(result);
}

void LaunchRun(Napi::Env env, run::RunRequest request, LaunchCallback on_launch,
               TerminalCallback on_terminal) {
  AddonState& state = State(env);
  // The token exists before preflight starts, so a session that ends meanwhile cancels it.
  Result<process::CancelToken> cancel = process::CancelToken::Create();
  if (!cancel.ok()) {
    on_launch(env, views::FailedLaunch({cancel.status(), ""}));
    return;
  }
  const uint64_t id = ++state.last_launch_id;
  state.launches.emplace(id, PendingLaunch{std::move(on_launch), std::move(on_terminal), *cancel});
  state.dispatcher->Hold(env);
  state.workers.emplace(id, std::thread(RunWorker, state.dispatcher.get(), state.tasks,
                                        state.warm_pool, std::move(request), *cancel, id));
}

void DeliverTerminal(Napi::Env env, const Terminal& terminal, bool wake_agent) {
  AddonState& state = State(env);
  if (state.pi.IsEmpty() || state.ui_ctx.IsEmpty()) {
    // The registration this run belonged to has ended (a /reload): say it in the next one.
    state.carried_notices.push_back(terminal.notice);
    return;
  }
  RefreshRunProgress(env);
  ShowFusionCost(env, views::UsageCostUsd(terminal.outcome.usage));
  const host::TerminalRoute route = host::RouteTerminal(
      {ModeOf(state.ui_ctx.Value()), CanRenderRunEntries(env), wake_agent, state.quitting},
      terminal);
  const bool shown = route.append_entry && AppendRunEntry(env, host::RunEntryData(terminal));
  if (route.notify == host::Notify::kAlways ||
      (route.notify == host::Notify::kUnlessEntryShown && !shown)) {
    Napi::Object ui = UiOf(env);
    if (!ui.IsEmpty()) {
      // Whoever watches (a person in the TUI, an RPC client) reads the notice; the agent gets
      // its own words in the wake below.
      Notify(env, ui, terminal.notice, route.notify_level);
    }
  }
  switch (route.wake) {
    case host::Wake::kNone:
      return;
    case host::Wake::kAtSettle:
      state.pending_wakes.push_back(terminal.text);
      return;
    case host::Wake::kStderr:
      WriteStderrLine(env, terminal.text);
      return;
    case host::Wake::kFollowUp:
      break;
  }
  Napi::Object pi = state.pi.Value();
  nlohmann::json view = terminal.view;
  view.erase("answer");  // the agent fetches it with bg_result, whose result shows it
  Napi::Object message = Napi::Object::New(env);
  message.Set("customType", kTaskMessageType);
  // Pi itself draws this content wherever no renderer of ours does (a Pi without the rendering API,
  // a resumed session), so its notice is neutralized like every other; the agent reads the same
  // notice, and the exact bytes of the run stay in its artifacts and bg_result.
  message.Set("content", NeutralizeControls(terminal.text));
  message.Set("display", true);
  const bool completed = terminal.outcome.end == run::RunEnd::kCompleted;
  message.Set("details", FromJson(env, {{"run_id", terminal.run_id},
                                        {"state", completed ? "completed" : "failed"},
                                        {"view", view}}));
  Napi::Object options = Napi::Object::New(env);
  options.Set("triggerTurn", true);
  options.Set("deliverAs", "followUp");
  Method(pi, "sendMessage").Call(pi, {message, options});
}

Napi::Value WaitForRunsBeforeSettle(Napi::Env env) {
  AddonState& state = State(env);
  if (state.launches.empty() && state.pending_wakes.empty()) return env.Undefined();
  Napi::Promise::Deferred waiter = Napi::Promise::Deferred::New(env);
  state.settle_waiters.push_back(waiter);
  ResolveSettleWaiters(env);
  return waiter.Promise();
}

}  // namespace pi_fusion::addon
