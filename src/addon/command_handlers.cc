#include "addon/command_handlers.h"

#include <unistd.h>

#include <string>

#include "addon/addon_state.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "addon/models_selector.h"
#include "addon/progress_display.h"
#include "addon/run_launcher.h"
#include "core/env_vars.h"
#include "core/fd_write.h"
#include "core/file_system.h"
#include "core/terminal_text.h"
#include "schema/normalize.h"
#include "schema/schema_walker.h"
#include "schema/tool_catalog.h"
#include "tasks/host_events.h"
#include "tasks/host_texts.h"

namespace pi_fusion::addon {
namespace {

bool HasUI(Napi::Object ctx) { return ctx.Get("hasUI").ToBoolean().Value(); }

// Tells the person at the keyboard: a toast in the TUI, a stderr line in print mode.
void Tell(Napi::Env env, Napi::Object ctx, const std::string& message, const char* level) {
  if (HasUI(ctx)) {
    Notify(env, ctx.Get("ui").As<Napi::Object>(), message, level);
  } else {
    WriteStderrLine(env, message);
  }
}

Napi::Value Resolved(Napi::Env env) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Resolve(env.Undefined());
  return deferred.Promise();
}

// promise.then(fn): fn receives the settled value on the JS thread.
Napi::Value Then(Napi::Env env, Napi::Value promise,
                 std::function<Napi::Value(Napi::Env, Napi::Value)> fn) {
  if (!promise.IsPromise()) return fn(env, promise);
  Napi::Object p = promise.As<Napi::Object>();
  return Method(p, "then").Call(p, {Napi::Function::New(env, [fn](const Napi::CallbackInfo& info) {
                                  return fn(info.Env(),
                                            info.Length() > 0 ? info[0] : info.Env().Undefined());
                                })});
}

// PI_FUSION_RAW_ANSWER=1 in Pi's environment: print mode writes the verified answer's exact bytes.
bool RawAnswerAsked(Napi::Env env) {
  Napi::Value value =
      env.Global().Get("process").As<Napi::Object>().Get("env").As<Napi::Object>().Get(
          env_vars::kRawAnswer);
  return value.IsString() && value.As<Napi::String>().Utf8Value() == "1";
}

// Print mode has nobody to notify later: the command waits for the run and writes the verified
// answer straight to stdout (Pi routes extension writes to process.stdout into stderr). The answer
// is a model's text and stdout is often a terminal, so its controls are neutralized unless the
// person asked for the raw bytes (to pipe them into a file, say).
void PrintOutcome(Napi::Env env, const Terminal& terminal) {
  const tasks::PrintedOutcome printed = tasks::PrintModeOutcome(PosixFileSystem(), terminal);
  if (!printed.stdout_text.empty()) {
    const std::string text =
        RawAnswerAsked(env) ? printed.stdout_text : NeutralizeControls(printed.stdout_text);
    (void)WriteAllToFd(STDOUT_FILENO, text, "write to stdout");
  }
  for (const std::string& line : printed.stderr_lines) WriteStderrLine(env, line);
  if (printed.failed) env.Global().Get("process").As<Napi::Object>().Set("exitCode", 1);
}

Napi::Value StartRun(Napi::Env env, Napi::Object ctx, const std::string& prompt) {
  AddonState& state = State(env);
  if (state.pi.IsEmpty()) return Resolved(env);
  Result<schema::NormalizedRequest> request =
      schema::NormalizeFusionCall(schema::FusionTool(Workflow::kReason).name, {{"prompt", prompt}});
  if (!request.ok()) {
    Tell(env, ctx, request.status().message(), "error");
    return Resolved(env);
  }
  state.ui_ctx = Napi::Persistent(ctx);
  workflow::RunRequest run;
  run.host =
      SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx, state.package_root, "", true);
  run.request = std::move(request).value();
  run.source = store::RunSource::kCommand;
  const bool interactive = HasUI(ctx);
  const bool print = ModeOf(ctx) == "print";
  auto done = Napi::Promise::Deferred::New(env);
  Napi::ObjectReference ctx_ref = Napi::Persistent(ctx);
  auto shared_ctx = std::make_shared<Napi::ObjectReference>(std::move(ctx_ref));
  LaunchRun(
      env, std::move(run),
      [done, interactive, shared_ctx](Napi::Env env, const Launch& launch) {
        Napi::Object ctx = shared_ctx->Value();
        if (!launch.ok) {
          Tell(env, ctx, launch.receipt_text, "error");
          if (!interactive) env.Global().Get("process").As<Napi::Object>().Set("exitCode", 1);
          done.Resolve(env.Undefined());
          return;
        }
        Tell(env, ctx, tasks::CommandStartedText(launch), "info");
        if (interactive) done.Resolve(env.Undefined());
      },
      [done, interactive, print](Napi::Env env, const Terminal& terminal) {
        DeliverTerminal(env, terminal, /*wake_agent=*/false);
        if (interactive) return;
        // Only print mode writes the answer to stdout; json mode's stdout stays JSONL (the
        // answer travels in the entry's event).
        if (print) {
          PrintOutcome(env, terminal);
        } else if (terminal.outcome.end != workflow::RunEnd::kCompleted) {
          env.Global().Get("process").As<Napi::Object>().Set("exitCode", 1);
        }
        done.Resolve(env.Undefined());
      });
  return done.Promise();
}

// Waits for the agent to be idle (the contract: waitForIdle before launch), then starts.
Napi::Value StartWhenIdle(Napi::Env env, Napi::Object ctx, const std::string& prompt) {
  Napi::Function wait = Method(ctx, "waitForIdle");
  Napi::Value idle = wait.IsEmpty() ? env.Undefined() : wait.Call(ctx, {});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, idle, [ctx_ref, prompt](Napi::Env env, Napi::Value) {
    return StartRun(env, ctx_ref->Value(), prompt);
  });
}

Napi::Value FusionCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  const std::string prompt =
      schema::TrimUnicodeSpace(info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "");
  if (!prompt.empty()) return StartWhenIdle(env, ctx, prompt);
  if (!HasUI(ctx)) {
    Tell(env, ctx, tasks::kFusionUsageText, "error");
    env.Global().Get("process").As<Napi::Object>().Set("exitCode", 1);
    return Resolved(env);
  }
  Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
  Napi::Value edited =
      Method(ui, "editor").Call(ui, {Napi::String::New(env, tasks::kFusionEditorTitle)});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, edited, [ctx_ref](Napi::Env env, Napi::Value text) -> Napi::Value {
    const std::string typed =
        schema::TrimUnicodeSpace(text.IsString() ? text.As<Napi::String>().Utf8Value() : "");
    if (typed.empty()) return env.Undefined();  // cancelled or blank: nothing starts
    return StartWhenIdle(env, ctx_ref->Value(), typed);
  });
}

Napi::Value FusionModelsCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  const Napi::Value mode = ctx.Get("mode");
  if (!mode.IsString() || mode.As<Napi::String>().Utf8Value() != "tui") {
    Tell(env, ctx, tasks::kModelsNeedTuiText, "error");
    if (!HasUI(ctx)) env.Global().Get("process").As<Napi::Object>().Set("exitCode", 1);
    return Resolved(env);
  }
  return ShowModelsSelector(env, ctx);
}

void Register(Napi::Env env, Napi::Object pi, const char* name, const char* description,
              Napi::Function::Callback handler) {
  Napi::Object command = Napi::Object::New(env);
  command.Set("description", description);
  command.Set("handler", Napi::Function::New(env, handler, name));
  Method(pi, "registerCommand").Call(pi, {Napi::String::New(env, name), command});
}

}  // namespace

void RegisterCommands(Napi::Env env, Napi::Object pi) {
  Register(env, pi, "fusion", tasks::kFusionCommandDescription, FusionCommand);
  Register(env, pi, "fusion-models", tasks::kFusionModelsCommandDescription, FusionModelsCommand);
}

}  // namespace pi_fusion::addon
