#include "addon/continue_command.h"

#include <memory>
#include <string>

#include "addon/addon_state.h"
#include "addon/command_launch.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "addon/tool_handlers.h"
#include "config/route_admission.h"
#include "core/file_system.h"
#include "tasks/continue_choice.h"
#include "tasks/verified_run.h"
#include "views/continue_texts.h"
#include "views/host_texts.h"

namespace pi_fusion::addon {
namespace {

// Tells the person what went wrong and its code; in print and json modes, Pi then exits 1.
Napi::Value Refuse(Napi::Env env, Napi::Object ctx, const Status& status) {
  Tell(env, ctx, status.message() + views::ErrorCodeLine(status.code()), "error");
  if (!HasUI(ctx)) FailProcess(env);
  return Resolved(env);
}

// The answer the arguments name, read and verified from the run's directory.
Result<tasks::ContinuedAnswer> ChosenAnswer(Napi::Env env, Napi::Object ctx,
                                            const tasks::ContinueArguments& args) {
  Result<tasks::TaskInfo> task = ResolveRunById(env, ctx, args.query);
  if (!task.ok()) {
    return Status::Error(task.status().code(), "/fusion-continue: " + task.status().message());
  }
  const tasks::VerifiedAnswers run =
      tasks::ReadVerifiedAnswers(PosixFileSystem(), task->artifact_dir);
  return tasks::ChooseAnswer(run, task->id, args.selector);
}

// True when a candidate's route would be admitted as a slot's route now and is not Pi's current
// model already: only then is switching to it offered.
bool OffersSwitch(Napi::Env env, Napi::Object ctx, const tasks::ContinuedAnswer& answer) {
  if (answer.merged) return false;
  AddonState& state = State(env);
  const run::HostSnapshot host = SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx,
                                              state.package_root, "", /*with_branch=*/false);
  const std::string route = answer.route.QualifiedId();
  if (host.registry.current && host.registry.current->QualifiedId() == route) return false;
  return config::AdmitRoute(kAllSlots[answer.slot - 1], route, host.registry).ok();
}

// Pi's Model object for the route (modelRegistry.find), or undefined.
Napi::Value FindModel(Napi::Env env, Napi::Object ctx, const store::ModelSelection& route) {
  const Napi::Value registry = ctx.Get("modelRegistry");
  if (!registry.IsObject()) return env.Undefined();
  Napi::Function find = Method(registry.As<Napi::Object>(), "find");
  if (find.IsEmpty()) return env.Undefined();
  return find.Call(registry,
                   {Napi::String::New(env, route.provider), Napi::String::New(env, route.model)});
}

// Switches Pi's model to the candidate's route and says whether Pi did.
Napi::Value SwitchModel(Napi::Env env, Napi::Object ctx, const tasks::ContinuedAnswer& answer) {
  AddonState& state = State(env);
  const Napi::Value model = FindModel(env, ctx, answer.route);
  if (state.pi.IsEmpty() || !model.IsObject()) {
    Tell(env, ctx, views::SwitchFailedText(answer), "warning");
    return env.Undefined();
  }
  Napi::Object pi = state.pi.Value();
  const Napi::Value switched = Method(pi, "setModel").Call(pi, {model});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, switched, [ctx_ref, answer](Napi::Env env, Napi::Value done) {
    const bool ok = done.ToBoolean().Value();
    Tell(env, ctx_ref->Value(), ok ? views::SwitchedText(answer) : views::SwitchFailedText(answer),
         ok ? "info" : "warning");
    return env.Undefined();
  });
}

// The TUI's confirm dialog; the model is switched only when the person says yes.
Napi::Value OfferSwitch(Napi::Env env, Napi::Object ctx, const tasks::ContinuedAnswer& answer) {
  Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
  const Napi::Value asked = Method(ui, "confirm")
                                .Call(ui, {Napi::String::New(env, views::SwitchOfferTitle(answer)),
                                           Napi::String::New(env, views::SwitchOfferText(answer))});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, asked, [ctx_ref, answer](Napi::Env env, Napi::Value yes) -> Napi::Value {
    if (!yes.ToBoolean().Value()) return env.Undefined();
    return SwitchModel(env, ctx_ref->Value(), answer);
  });
}

// The answer as a custom message: Pi sends it to the model as a user message with the next turn
// and keeps it in the session. No turn is started: the person asks the next question.
void SendAnswer(Napi::Env env, const tasks::ContinuedAnswer& answer) {
  Napi::Object pi = State(env).pi.Value();
  Napi::Object message = Napi::Object::New(env);
  message.Set("customType", views::kContinueMessageType);
  message.Set("content", views::ContinueMessageText(answer));
  message.Set("display", true);
  message.Set("details", FromJson(env, views::ContinueDetails(answer)));
  Method(pi, "sendMessage").Call(pi, {message});
}

}  // namespace

Napi::Value FusionContinueCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  if (State(env).pi.IsEmpty()) return Resolved(env);
  Result<tasks::ContinueArguments> args = tasks::ParseContinueArguments(TypedText(info[0]));
  if (!args.ok()) return Refuse(env, ctx, args.status());
  Result<tasks::ContinuedAnswer> answer = ChosenAnswer(env, ctx, *args);
  if (!answer.ok()) return Refuse(env, ctx, answer.status());
  SendAnswer(env, *answer);
  const bool offer = OffersSwitch(env, ctx, *answer);
  if (!HasUI(ctx)) {
    Tell(env, ctx, views::ContinueAddedText(*answer, offer), "info");
    return Resolved(env);
  }
  if (!offer) return Resolved(env);
  return OfferSwitch(env, ctx, *answer);
}

}  // namespace pi_fusion::addon
