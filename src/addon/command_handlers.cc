#include "addon/command_handlers.h"

#include <string>

#include "addon/addon_state.h"
#include "addon/command_launch.h"
#include "addon/continue_command.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "addon/models_selector.h"
#include "addon/report_command.h"
#include "addon/resume_command.h"
#include "core/file_system.h"
#include "run/panel_argument.h"
#include "schema/normalize.h"
#include "schema/tool_catalog.h"
#include "views/continue_texts.h"
#include "views/host_texts.h"
#include "views/report_texts.h"

namespace pi_fusion::addon {
namespace {

Napi::Value StartRun(Napi::Env env, Napi::Object ctx, const std::string& prompt,
                     const std::string& panel) {
  AddonState& state = State(env);
  if (state.pi.IsEmpty()) return Resolved(env);
  Result<schema::NormalizedRequest> request =
      schema::NormalizeFusionCall(schema::FusionTool(Workflow::kReason).name, {{"prompt", prompt}});
  if (!request.ok()) {
    Tell(env, ctx, request.status().message(), "error");
    return Resolved(env);
  }
  run::RunRequest run;
  run.host =
      SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx, state.package_root, "", true);
  run.request = std::move(request).value();
  run.source = store::RunSource::kCommand;
  run.panel = panel;
  return LaunchFromCommand(env, ctx, std::move(run), views::CommandStartedText);
}

Napi::Value StartWhenIdle(Napi::Env env, Napi::Object ctx, const std::string& prompt,
                          const std::string& panel) {
  return WhenIdle(env, ctx, [prompt, panel](Napi::Env env, Napi::Object ctx) {
    return StartRun(env, ctx, prompt, panel);
  });
}

Napi::Value FusionCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  // "@<panel> <question>": the named panel (run/panel_argument.h); "@<panel>" alone opens the
  // editor for the question.
  const run::PanelArgument typed = run::SplitPanelArgument(TypedText(info[0]));
  const std::string& panel = typed.panel;
  if (!typed.prompt.empty()) return StartWhenIdle(env, ctx, typed.prompt, panel);
  if (!HasUI(ctx)) {
    Tell(env, ctx, views::kFusionUsageText, "error");
    FailProcess(env);
    return Resolved(env);
  }
  Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
  Napi::Value edited =
      Method(ui, "editor").Call(ui, {Napi::String::New(env, views::kFusionEditorTitle)});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, edited, [ctx_ref, panel](Napi::Env env, Napi::Value text) -> Napi::Value {
    const std::string typed = TypedText(text);
    if (typed.empty()) return env.Undefined();  // cancelled or blank: nothing starts
    return StartWhenIdle(env, ctx_ref->Value(), typed, panel);
  });
}

Napi::Value FusionModelsCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  const Napi::Value mode = ctx.Get("mode");
  if (!mode.IsString() || mode.As<Napi::String>().Utf8Value() != "tui") {
    Tell(env, ctx, views::kModelsNeedTuiText, "error");
    if (!HasUI(ctx)) FailProcess(env);
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
  Register(env, pi, "fusion", views::kFusionCommandDescription, FusionCommand);
  Register(env, pi, "fusion-models", views::kFusionModelsCommandDescription, FusionModelsCommand);
  Register(env, pi, "fusion-resume", views::kFusionResumeCommandDescription, FusionResumeCommand);
  Register(env, pi, "fusion-report", views::kFusionReportCommandDescription, FusionReportCommand);
  Register(env, pi, "fusion-continue", views::kFusionContinueCommandDescription,
           FusionContinueCommand);
}

}  // namespace pi_fusion::addon
