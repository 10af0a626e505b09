#include "addon/command_handlers.h"

#include <string>

#include "addon/js_values.h"
#include "schema/schema_walker.h"

namespace pi_fusion::addon {
namespace {

// Tells the person at the keyboard: a toast in the TUI, a stderr line in print mode.
void Tell(Napi::Env env, Napi::Object ctx, const std::string& message, const char* level) {
  if (ctx.Get("hasUI").ToBoolean().Value()) {
    Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
    Method(ui, "notify").Call(ui, {Napi::String::New(env, message), Napi::String::New(env, level)});
  } else {
    WriteStderrLine(env, message);
  }
}

Napi::Value Resolved(Napi::Env env) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Resolve(env.Undefined());
  return deferred.Promise();
}

Napi::Value FusionCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  const std::string prompt =
      schema::TrimUnicodeSpace(info[0].IsString() ? info[0].As<Napi::String>().Utf8Value() : "");
  if (prompt.empty() && !ctx.Get("hasUI").ToBoolean().Value()) {
    Tell(env, ctx, "Usage: /fusion <prompt>", "error");
    return Resolved(env);
  }
  Tell(env, ctx,
       "/fusion: this build of pi-fusion cannot start Fusion runs yet (no workflow engine). "
       "Nothing was started.",
       "error");
  return Resolved(env);
}

Napi::Value FusionModelsCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  const Napi::Value mode = ctx.Get("mode");
  if (!mode.IsString() || mode.As<Napi::String>().Utf8Value() != "tui") {
    Tell(env, ctx, "/fusion-models requires Pi TUI mode", "error");
    return Resolved(env);
  }
  Tell(env, ctx, "/fusion-models: the model selector is not part of this build yet.", "error");
  return Resolved(env);
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
  Register(env, pi, "fusion",
           "Answer a hard question with Fusion (three candidates, blind evaluator, merger) as a "
           "background task: /fusion <prompt>, or no argument to open an editor",
           FusionCommand);
  Register(env, pi, "fusion-models",
           "Choose the models for Fusion's five slots (Candidate 1-3, Evaluator, Merger); TUI only",
           FusionModelsCommand);
}

}  // namespace pi_fusion::addon
