#include "addon/command_launch.h"

#include <unistd.h>

#include <memory>

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "addon/progress_display.h"
#include "addon/run_launcher.h"
#include "core/env_vars.h"
#include "core/fd_write.h"
#include "core/file_system.h"
#include "core/terminal_text.h"
#include "host/host_events.h"
#include "schema/schema_walker.h"

namespace pi_fusion::addon {
namespace {

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
  const host::PrintedOutcome printed = host::PrintModeOutcome(PosixFileSystem(), terminal);
  if (!printed.stdout_text.empty()) {
    const std::string text =
        RawAnswerAsked(env) ? printed.stdout_text : NeutralizeControls(printed.stdout_text);
    (void)WriteAllToFd(STDOUT_FILENO, text, "write to stdout");
  }
  for (const std::string& line : printed.stderr_lines) WriteStderrLine(env, line);
  if (printed.failed) FailProcess(env);
}

}  // namespace

std::string TypedText(Napi::Value value) {
  return schema::TrimUnicodeSpace(value.IsString() ? value.As<Napi::String>().Utf8Value() : "");
}

bool HasUI(Napi::Object ctx) { return ctx.Get("hasUI").ToBoolean().Value(); }

void Tell(Napi::Env env, Napi::Object ctx, const std::string& message, const char* level) {
  if (HasUI(ctx)) {
    Notify(env, ctx.Get("ui").As<Napi::Object>(), message, level);
  } else {
    WriteStderrLine(env, message);
  }
}

void FailProcess(Napi::Env env) {
  env.Global().Get("process").As<Napi::Object>().Set("exitCode", 1);
}

Napi::Value Resolved(Napi::Env env) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Resolve(env.Undefined());
  return deferred.Promise();
}

Napi::Value Then(Napi::Env env, Napi::Value promise,
                 std::function<Napi::Value(Napi::Env, Napi::Value)> fn) {
  if (!promise.IsPromise()) return fn(env, promise);
  Napi::Object p = promise.As<Napi::Object>();
  return Method(p, "then").Call(p, {Napi::Function::New(env, [fn](const Napi::CallbackInfo& info) {
                                  return fn(info.Env(),
                                            info.Length() > 0 ? info[0] : info.Env().Undefined());
                                })});
}

Napi::Value WhenIdle(Napi::Env env, Napi::Object ctx,
                     std::function<Napi::Value(Napi::Env, Napi::Object)> start) {
  Napi::Function wait = Method(ctx, "waitForIdle");
  Napi::Value idle = wait.IsEmpty() ? env.Undefined() : wait.Call(ctx, {});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, idle, [ctx_ref, start](Napi::Env env, Napi::Value) {
    return start(env, ctx_ref->Value());
  });
}

Napi::Value LaunchFromCommand(Napi::Env env, Napi::Object ctx, run::RunRequest run,
                              StartedText started) {
  AddonState& state = State(env);
  state.ui_ctx = Napi::Persistent(ctx);
  const bool interactive = HasUI(ctx);
  const bool print = ModeOf(ctx) == "print";
  auto done = Napi::Promise::Deferred::New(env);
  auto shared_ctx = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  LaunchRun(
      env, std::move(run),
      [done, interactive, shared_ctx, started](Napi::Env env, const Launch& launch) {
        Napi::Object ctx = shared_ctx->Value();
        if (!launch.ok) {
          Tell(env, ctx, launch.receipt_text, "error");
          if (!interactive) FailProcess(env);
          done.Resolve(env.Undefined());
          return;
        }
        Tell(env, ctx, started(launch), "info");
        if (interactive) done.Resolve(env.Undefined());
      },
      [done, interactive, print](Napi::Env env, const Terminal& terminal) {
        DeliverTerminal(env, terminal, /*wake_agent=*/false);
        if (interactive) return;
        // Only print mode writes the answer to stdout; json mode's stdout stays JSONL (the
        // answer travels in the entry's event).
        if (print) {
          PrintOutcome(env, terminal);
        } else if (terminal.outcome.end != run::RunEnd::kCompleted) {
          FailProcess(env);
        }
        done.Resolve(env.Undefined());
      });
  return done.Promise();
}

}  // namespace pi_fusion::addon
