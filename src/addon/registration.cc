#include "addon/registration.h"

#include "addon/addon_state.h"
#include "addon/command_handlers.h"
#include "addon/js_values.h"
#include "addon/progress_display.h"
#include "addon/quit_trace.h"
#include "addon/renderers.h"
#include "addon/run_launcher.h"
#include "addon/tool_handlers.h"
#include "host/host_events.h"
#include "schema/tool_catalog.h"
#include "views/host_texts.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::addon {
namespace {

void RegisterTools(Napi::Env env, Napi::Object pi) {
  Napi::Function register_tool = Method(pi, "registerTool");
  for (const schema::ToolSpec& spec : schema::RegisteredTools()) {
    Napi::Object tool = Napi::Object::New(env);
    tool.Set("name", spec.name);
    tool.Set("label", spec.label);
    tool.Set("description", spec.description);
    tool.Set("promptSnippet", spec.prompt_snippet);
    Napi::Array guidelines = Napi::Array::New(env);
    for (const std::string& line : spec.prompt_guidelines)
      guidelines.Set(guidelines.Length(), line);
    tool.Set("promptGuidelines", guidelines);
    tool.Set("parameters", FromJson(env, *schema::ToolParameters(spec.name)));
    tool.Set("annotations", FromJson(env, schema::ToolAnnotations(spec)));
    tool.Set("prepareArguments", MakeArgumentPreparer(env, spec));
    tool.Set("execute", MakeToolExecutor(env, spec));
    AttachToolRenderers(env, tool, spec.name);
    register_tool.Call(pi, {tool});
  }
}

// The retired tool must never be offered again, even when an old session's settings list it.
void RemoveRetiredTool(Napi::Env env, Napi::Object pi) {
  Napi::Array active = Method(pi, "getActiveTools").Call(pi, {}).As<Napi::Array>();
  Napi::Array kept = Napi::Array::New(env);
  bool removed = false;
  for (uint32_t i = 0; i < active.Length(); ++i) {
    Napi::Value name = active.Get(i);
    if (name.IsString() && name.As<Napi::String>().Utf8Value() == schema::kRetiredToolName) {
      removed = true;
      continue;
    }
    kept.Set(kept.Length(), name);
  }
  if (removed) Method(pi, "setActiveTools").Call(pi, {kept});
}

// Cancellation notices of runs that ended with the previous registration (/reload, /new, …).
void ShowCarriedNotices(Napi::Env env) {
  AddonState& state = State(env);
  std::vector<std::string> notices = std::move(state.carried_notices);
  state.carried_notices.clear();
  Napi::Object ui = UiOf(env);
  for (const std::string& notice : notices) {
    if (ui.IsEmpty()) {
      WriteStderrLine(env, notice);
    } else {
      Notify(env, ui, notice, "warning");
    }
  }
}

void ResolveWokenWaiters(Napi::Env env) {
  std::vector<Napi::Promise::Deferred> waiters = std::move(State(env).woken_waiters);
  State(env).woken_waiters.clear();
  for (Napi::Promise::Deferred& waiter : waiters) waiter.Resolve(env.Undefined());
}

// The agent_settled hold for Pis without agent_before_settle (before 0.87.0). Pi awaits these
// handlers before its prompt returns, so holding here keeps print mode alive. Once no run is
// active, the terminal notices that agent_before_settle would have returned as entries are sent
// as triggering messages (the first starts a run, the rest follow it), and the hold lasts until
// an agent_settled finds nothing left to do: only then does print mode print the last answer.
Napi::Value HoldAfterSettle(Napi::Env env) {
  Napi::Value waiting = WaitForRunsBeforeSettle(env);
  if (!waiting.IsPromise()) {
    ResolveWokenWaiters(env);
    return env.Undefined();
  }
  Napi::Object promise = waiting.As<Napi::Object>();
  Napi::Function wake = Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
    Napi::Env env = info.Env();
    AddonState& state = State(env);
    if (info.Length() < 1 || !info[0].IsObject() || state.pi.IsEmpty()) return env.Undefined();
    Napi::Value entries = info[0].As<Napi::Object>().Get("entries");
    if (!entries.IsArray() || entries.As<Napi::Array>().Length() == 0) return env.Undefined();
    Napi::Promise::Deferred settled = Napi::Promise::Deferred::New(env);
    state.woken_waiters.push_back(settled);
    Napi::Object pi = state.pi.Value();
    Napi::Array list = entries.As<Napi::Array>();
    for (uint32_t i = 0; i < list.Length(); ++i) {
      Napi::Object entry = list.Get(i).As<Napi::Object>();
      Napi::Object message = Napi::Object::New(env);
      message.Set("customType", entry.Get("customType"));
      message.Set("content", entry.Get("content"));
      message.Set("display", true);
      Napi::Object options = Napi::Object::New(env);
      options.Set("triggerTurn", true);
      options.Set("deliverAs", "followUp");
      Method(pi, "sendMessage").Call(pi, {message, options});
    }
    return settled.Promise();
  });
  return Method(promise, "then").Call(promise, {wake});
}

// A settle hook's (event, ctx) as the decision's plain values. Without a context nothing is held.
host::SettleAction SettleActionOf(const Napi::CallbackInfo& info, host::SettleHook hook) {
  if (info.Length() < 2 || !info[1].IsObject()) return host::SettleAction::kNothing;
  const bool has_ui = info[1].As<Napi::Object>().Get("hasUI").ToBoolean().Value();
  const Napi::Value aborted =
      info[0].IsObject() ? info[0].As<Napi::Object>().Get("aborted") : info.Env().Undefined();
  return host::DecideSettle(hook, has_ui, aborted.IsBoolean() && aborted.ToBoolean().Value());
}

// One of the signals Pi quits on arrived: remember it, so the cancellation can say so, and cancel
// the runs at once. Pi listens to both in every mode; should nothing else listen, this listener
// must not swallow the signal, so it steps aside and raises it again for Node's default action.
void OnQuitSignal(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const char* signal = static_cast<const char*>(info.Data());
  AddonState& state = State(env);
  state.shutdown_signal = signal;
  // Pi's own quit waits for a held agent to settle, which waits for the runs: end them now.
  state.quitting = true;
  state.CancelAllRuns(tasks::CancelSource::kSignal);
  Napi::Object process = env.Global().Get("process").As<Napi::Object>();
  const Napi::String name = Napi::String::New(env, signal);
  if (Method(process, "listenerCount").Call(process, {name}).ToNumber().Int32Value() > 1) return;
  Method(process, "removeAllListeners").Call(process, {name});
  Method(process, "kill").Call(process, {process.Get("pid"), name});
}

void RecordQuitSignals(Napi::Env env) {
  AddonState& state = State(env);
  if (state.signal_listeners_installed) return;
  state.signal_listeners_installed = true;
  Napi::Object process = env.Global().Get("process").As<Napi::Object>();
  for (const char* signal : {"SIGTERM", "SIGHUP"}) {
    Method(process, "on")
        .Call(process, {Napi::String::New(env, signal),
                        Napi::Function::New(env, OnQuitSignal, signal, const_cast<char*>(signal))});
  }
}

// Print and json modes end the process as soon as a quit's session_shutdown returns, without
// running the event loop again: what the stopped runs posted is delivered now, and an agent held
// for its runs is let go with their notices on stderr rather than woken for another model turn.
void DeliverEndsBeforeExit(Napi::Env env) {
  AddonState& state = State(env);
  state.dispatcher->RunPending(env);
  for (const std::string& text : state.pending_wakes) WriteStderrLine(env, text);
  state.pending_wakes.clear();
  ResolveSettleWaiters(env);
}

// Lifecycle handlers act only for the registration they belong to: on /reload the new register()
// may run before the old runtime's session_shutdown arrives.
void RegisterLifecycle(Napi::Env env, Napi::Object pi, uint64_t generation) {
  auto current = [generation](Napi::Env e) {
    AddonState& state = State(e);
    return state.generation == generation && !state.pi.IsEmpty();
  };
  Napi::Function on = Method(pi, "on");
  on.Call(pi, {Napi::String::New(env, "session_start"),
               Napi::Function::New(env, [current](const Napi::CallbackInfo& info) {
                 Napi::Env env = info.Env();
                 if (!current(env)) return;
                 if (info.Length() > 1 && info[1].IsObject()) {
                   State(env).ui_ctx = Napi::Persistent(info[1].As<Napi::Object>());
                 }
                 RemoveRetiredTool(env, State(env).pi.Value());
                 ShowCarriedNotices(env);
               })});
  // In print mode Pi exits once the agent settles: hold it until our runs have ended, then wake
  // the agent with the terminal notices of tool-launched runs so it can call bg_result.
  on.Call(pi, {Napi::String::New(env, "agent_before_settle"),
               Napi::Function::New(env, [current](const Napi::CallbackInfo& info) -> Napi::Value {
                 Napi::Env env = info.Env();
                 if (!current(env)) return env.Undefined();
                 switch (SettleActionOf(info, host::SettleHook::kBeforeSettle)) {
                   case host::SettleAction::kHold:
                     return WaitForRunsBeforeSettle(env);
                   case host::SettleAction::kReleaseWoken:
                   case host::SettleAction::kNothing:
                     break;
                 }
                 return env.Undefined();
               })});
  // Pi before 0.87.0 has no agent_before_settle: hold print mode in agent_settled instead (Pi
  // awaits its handlers before it exits) and wake the agent with a triggered message once the
  // runs end. Where agent_before_settle exists it has already waited, so nothing is left here.
  // An aborted run (agent_settled.aborted, Pi 1.1.0+) is not held.
  on.Call(pi, {Napi::String::New(env, "agent_settled"),
               Napi::Function::New(env, [current](const Napi::CallbackInfo& info) -> Napi::Value {
                 Napi::Env env = info.Env();
                 if (!current(env)) return env.Undefined();
                 switch (SettleActionOf(info, host::SettleHook::kSettled)) {
                   case host::SettleAction::kHold:
                     return HoldAfterSettle(env);
                   case host::SettleAction::kReleaseWoken:
                     ResolveWokenWaiters(env);
                     break;
                   case host::SettleAction::kNothing:
                     break;
                 }
                 return env.Undefined();
               })});
  // Quit and /reload both end here: cancel every run (each records its cancellation durably),
  // join the workers and drop the registration so the next register() starts clean.
  on.Call(pi, {Napi::String::New(env, "session_shutdown"),
               Napi::Function::New(env, [current](const Napi::CallbackInfo& info) {
                 Napi::Env env = info.Env();
                 if (!current(env)) return;
                 AddonState& state = State(env);
                 ResolveWokenWaiters(env);
                 Napi::Value event = info.Length() > 0 ? info[0] : env.Undefined();
                 Napi::Value reason =
                     event.IsObject() ? event.As<Napi::Object>().Get("reason") : env.Undefined();
                 const std::string why =
                     reason.IsString() ? reason.As<Napi::String>().Utf8Value() : "";
                 if (why == "quit") state.quitting = true;
                 state.StopAllRuns(host::ShutdownCancelSource(why, !state.shutdown_signal.empty()));
                 // Pi quits: the warm candidates go with it (a /new or /reload keeps them).
                 if (why == "quit") state.warm_pool->EndAll();
                 if (why == "quit" && UiOf(env).IsEmpty()) {
                   DeliverEndsBeforeExit(env);
                 } else if (why == "quit" && ModeOf(state.ui_ctx.Value()) == "tui") {
                   LeaveQuitTrace(env);
                 }
                 ClearRunProgress(env);
                 state.pi.Reset();
                 state.ui_ctx.Reset();
               })});
}

}  // namespace

Napi::Value Register(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    throw Napi::TypeError::New(env, views::kRegisterNeedsPiText);
  }
  Napi::Object pi = info[0].As<Napi::Object>();
  AddonState& state = State(env);
  if (!state.pi.IsEmpty() && state.pi.Value().StrictEquals(pi)) return env.Undefined();

  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object options = info[1].As<Napi::Object>();
    Napi::Value root = options.Get("packageRoot");
    if (root.IsString()) state.package_root = root.As<Napi::String>().Utf8Value();
    AdoptRenderModule(env, options.Get("render"));
    Napi::Value selector_ui = options.Get("showModelsSelector");
    if (selector_ui.IsFunction()) {
      state.show_models_selector = Napi::Persistent(selector_ui.As<Napi::Function>());
    }
    Napi::Value run_program = options.Get("runProgram");
    if (run_program.IsFunction())
      state.run_program = Napi::Persistent(run_program.As<Napi::Function>());
    Napi::Value addon_path = options.Get("addonPath");
    if (addon_path.IsString()) state.addon_path = addon_path.As<Napi::String>().Utf8Value();
  }
  RegisterTools(env, pi);
  RegisterViewRenderers(env, pi);
  RegisterCommands(env, pi);
  state.pi = Napi::Persistent(pi);
  state.generation += 1;
  RegisterLifecycle(env, pi, state.generation);
  RecordQuitSignals(env);
  return env.Undefined();
}

}  // namespace pi_fusion::addon
