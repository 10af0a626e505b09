#include "addon/models_selector.h"

#include <memory>
#include <string>

#include "addon/addon_state.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "config/selector.h"
#include "core/file_system.h"
#include "views/host_texts.h"

namespace pi_fusion::addon {
namespace {

// The store and the selector reading it, alive as long as the JS controller is.
struct SelectorSession {
  SelectorSession(std::string agent_dir, config::RegistrySnapshot registry)
      : store(std::move(agent_dir), PosixFileSystem(), SystemClock()),
        selector(store, std::move(registry)) {}
  config::ConfigStore store;
  config::Selector selector;
};

config::SelectorKey KeyOf(const std::string& name) {
  if (name == "up") return config::SelectorKey::kUp;
  if (name == "down") return config::SelectorKey::kDown;
  if (name == "enter") return config::SelectorKey::kEnter;
  if (name == "escape") return config::SelectorKey::kEscape;
  if (name == "backspace") return config::SelectorKey::kBackspace;
  return config::SelectorKey::kText;
}

// {lines(): [{text, style}], key(name, text): closed}
Napi::Object Controller(Napi::Env env, std::shared_ptr<SelectorSession> session) {
  Napi::Object controller = Napi::Object::New(env);
  controller.Set("lines", Napi::Function::New(env, [session](const Napi::CallbackInfo& info) {
                   Napi::Env env = info.Env();
                   Napi::Array lines = Napi::Array::New(env);
                   for (const config::SelectorLine& line : session->selector.Render()) {
                     Napi::Object out = Napi::Object::New(env);
                     out.Set("text", line.text);
                     out.Set("style", line.style);
                     lines.Set(lines.Length(), out);
                   }
                   return lines;
                 }));
  controller.Set("key", Napi::Function::New(env, [session](const Napi::CallbackInfo& info) {
                   auto text = [&](size_t i) {
                     return info.Length() > i && info[i].IsString()
                                ? info[i].As<Napi::String>().Utf8Value()
                                : std::string();
                   };
                   const config::SelectorOutcome outcome =
                       session->selector.HandleKey(KeyOf(text(0)), text(1));
                   return Napi::Boolean::New(info.Env(), outcome != config::SelectorOutcome::kOpen);
                 }));
  return controller;
}

}  // namespace

Napi::Value ShowModelsSelector(Napi::Env env, Napi::Object ctx) {
  AddonState& state = State(env);
  Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
  if (state.show_models_selector.IsEmpty() || state.pi.IsEmpty()) {
    Notify(env, ui, views::kModelsSelectorMissingText, "error");
    return env.Undefined();
  }
  run::HostSnapshot host = SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx,
                                        state.package_root, "", /*with_branch=*/false);
  auto session =
      std::make_shared<SelectorSession>(std::move(host.agent_dir), std::move(host.registry));
  Napi::Value shown = state.show_models_selector.Value().Call({ctx, Controller(env, session)});
  if (!shown.IsPromise()) return shown;
  auto ui_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ui));
  Napi::Object promise = shown.As<Napi::Object>();
  return Method(promise, "then")
      .Call(promise, {Napi::Function::New(env, [session, ui_ref](const Napi::CallbackInfo& info) {
              const config::Selector& selector = session->selector;
              Napi::Object ui = ui_ref->Value();
              if (selector.outcome() == config::SelectorOutcome::kSaved) {
                Notify(info.Env(), ui, views::ModelsSavedText(session->store.path()), "info");
              } else if (selector.HasUnsavedChanges()) {
                Notify(info.Env(), ui, views::ModelsNotSavedText(session->store.path()), "warning");
              }
              return info.Env().Undefined();
            })});
}

}  // namespace pi_fusion::addon
