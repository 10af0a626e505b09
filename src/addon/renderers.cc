#include "addon/renderers.h"

#include <chrono>

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "core/clock.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "core/terminal_text.h"
#include "views/continue_texts.h"
#include "views/host_texts.h"
#include "views/markdown_literals.h"
#include "views/run_expansion.h"
#include "views/run_view.h"
#include "views/tool_result_view.h"

namespace pi_fusion::addon {
namespace {

using nlohmann::json;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             SystemClock().WallNow().time_since_epoch())
      .count();
}

Napi::Function RenderFunction(Napi::Env env, const char* name) {
  AddonState& state = State(env);
  if (state.render.IsEmpty()) return Napi::Function();
  return Method(state.render.Value(), name);
}

// Calls the render module's `name` with a view: the one way a view reaches the screen. Its texts
// come from models (answers, evaluator summaries, error messages quoting them), from the tool
// call's arguments and from run directories, so their terminal controls are neutralized here.
Napi::Value Render(Napi::Env env, const char* name, json view, Napi::Value options,
                   Napi::Value theme) {
  NeutralizeStrings(view);
  views::KeepIntrawordStarsInView(view);  // unfenced code keeps its `*` (markdown_literals.h)
  if (options.IsEmpty()) return RenderFunction(env, name).Call({FromJson(env, view), theme});
  return RenderFunction(env, name).Call({FromJson(env, view), options, theme});
}

// {expanded, expandHint}: the hint comes from Pi's own keybinding formatter when it has one.
Napi::Object RenderOptions(Napi::Env env, bool expanded, Napi::Value hint_source) {
  Napi::Object options = Napi::Object::New(env);
  options.Set("expanded", expanded);
  if (hint_source.IsObject()) {
    Napi::Function key_hint = Method(hint_source.As<Napi::Object>(), "keyHint");
    if (!key_hint.IsEmpty()) {
      options.Set("expandHint",
                  key_hint.Call(hint_source, {Napi::String::New(env, "app.tools.expand"),
                                              Napi::String::New(env, views::kExpandHintText)}));
    }
  }
  return options;
}

// The run directory of a finished run's view; "" for a running run or a view without one.
std::string FinishedRunDir(const json& view) {
  const std::string state = view.value("state", "");
  const bool finished = state == "completed" || state == "failed" || state == "cancelled";
  if (!finished || !view.contains("artifacts") || !view["artifacts"].is_object()) return "";
  return view["artifacts"].value("dir", "");
}

// `view` with `more`'s keys; notes are added after the view's own.
json Merged(json view, const json& more) {
  for (const auto& [key, value] : more.items()) {
    if (key == "notes" && view.contains("notes") && view["notes"].is_array()) {
      for (const json& note : value) view["notes"].push_back(note);
    } else {
      view[key] = value;
    }
  }
  return view;
}

// A finished run's view gains its candidates and evaluation when expanded (read from disk now,
// so a pruned run says its artifacts are gone).
json WithExpansion(json view) {
  const std::string dir = FinishedRunDir(view);
  if (dir.empty()) return view;
  json more = views::ExpandRun(PosixFileSystem(), dir);
  // A failed or cancelled run keeps what was paid for in view: each verified candidate answer.
  if (view.value("state", "") != "completed") views::KeepVerifiedCandidates(more);
  return Merged(std::move(view), more);
}

// bg_result's expanded view: the candidates stay in the run's own block (ReadBackExpansion); a
// run directory is named by its run id.
json WithReadBackExpansion(json view) {
  const std::string dir = FinishedRunDir(view);
  if (dir.empty()) return view;
  return Merged(std::move(view), views::ReadBackExpansion(views::ExpandRun(PosixFileSystem(), dir),
                                                          dir.substr(dir.rfind('/') + 1)));
}

std::string FirstText(Napi::Value result) {
  if (!result.IsObject()) return "";
  Napi::Value content = result.As<Napi::Object>().Get("content");
  if (!content.IsArray()) return "";
  Napi::Array parts = content.As<Napi::Array>();
  for (uint32_t i = 0; i < parts.Length(); ++i) {
    Napi::Value part = parts.Get(i);
    if (!part.IsObject()) continue;
    Napi::Value text = part.As<Napi::Object>().Get("text");
    if (text.IsString()) return text.As<Napi::String>().Utf8Value();
  }
  return "";
}

// Render data from Pi is display input: anything not JSON renders as if absent.
json JsonOf(Napi::Env env, Napi::Value value) {
  Result<json> converted = ToJson(env, value, kInvalidArguments);
  return converted.ok() ? *converted : json::object();
}

bool Flag(Napi::Value object, const char* key) {
  return object.IsObject() && object.As<Napi::Object>().Get(key).ToBoolean().Value();
}

// A custom message's view (details.view), drawn as the /fusion run entry is.
Napi::Value RenderMessageView(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Value message = info[0];
  Napi::Value details =
      message.IsObject() ? message.As<Napi::Object>().Get("details") : env.Undefined();
  if (!details.IsObject() || !details.As<Napi::Object>().Get("view").IsObject())
    return env.Undefined();
  const bool expanded = Flag(info[1], "expanded");
  json view = JsonOf(env, details.As<Napi::Object>().Get("view"));
  if (expanded) view = WithExpansion(std::move(view));
  return Render(env, "renderMessage", std::move(view), RenderOptions(env, expanded, info[1]),
                info[2]);
}

}  // namespace

void AdoptRenderModule(Napi::Env env, Napi::Value render) {
  AddonState& state = State(env);
  state.render.Reset();
  if (!render.IsObject()) return;
  Napi::Object module = render.As<Napi::Object>();
  for (const char* name : {"renderView", "renderCall", "renderMessage"}) {
    if (!module.Get(name).IsFunction()) return;
  }
  state.render = Napi::Persistent(module);
}

bool CanRender(Napi::Env env) { return !State(env).render.IsEmpty(); }

bool CanRenderRunEntries(Napi::Env env) { return CanRender(env) && State(env).run_entry_renders; }

void AttachToolRenderers(Napi::Env env, Napi::Object tool, const std::string& name) {
  if (!CanRender(env)) return;
  tool.Set("renderCall", Napi::Function::New(env, [name](const Napi::CallbackInfo& info) {
             Napi::Env env = info.Env();
             const json args = info[0].IsObject() ? JsonOf(env, info[0]) : json();
             return Render(env, "renderCall", views::CallView(name, args), Napi::Value(), info[1]);
           }));
  tool.Set("renderResult", Napi::Function::New(env, [name](const Napi::CallbackInfo& info) {
             Napi::Env env = info.Env();
             Napi::Value result = info[0];
             Napi::Value options = info[1];
             Napi::Value context = info.Length() > 3 ? info[3] : env.Undefined();
             const json details =
                 result.IsObject() && result.As<Napi::Object>().Get("details").IsObject()
                     ? JsonOf(env, result.As<Napi::Object>().Get("details"))
                     : json::object();
             const bool expanded = Flag(options, "expanded");
             const int64_t now = NowMs();
             // A launch row of a run that has ended since says how it ended.
             std::optional<tasks::TaskInfo> ended;
             if (name.rfind("fusion_", 0) == 0 && details.contains("run_id")) {
               AddonState& state = State(env);
               ended = state.launched_runs.Ended(*state.tasks, PosixFileSystem(),
                                                 views::StringAt(details, "run_id"),
                                                 views::StringAt(details, "artifact_dir"), now);
             }
             json view =
                 views::ToolResultView(name, details, FirstText(result), Flag(context, "isError"),
                                       now, ended ? &*ended : nullptr);
             if (expanded && name == "bg_result") view = WithReadBackExpansion(std::move(view));
             return Render(env, "renderView", std::move(view),
                           RenderOptions(env, expanded, context), info[2]);
           }));
}

void RegisterViewRenderers(Napi::Env env, Napi::Object pi) {
  State(env).run_entry_renders = false;
  if (!CanRender(env)) return;
  Napi::Function entry_renderer = Method(pi, "registerEntryRenderer");
  if (!entry_renderer.IsEmpty()) {
    State(env).run_entry_renders = true;
    entry_renderer.Call(
        pi, {Napi::String::New(env, kRunEntryType),
             Napi::Function::New(env, [](const Napi::CallbackInfo& info) -> Napi::Value {
               Napi::Env env = info.Env();
               Napi::Value entry = info[0];
               if (!entry.IsObject() || !entry.As<Napi::Object>().Get("data").IsObject())
                 return env.Undefined();
               const bool expanded = Flag(info[1], "expanded");
               json view = JsonOf(env, entry.As<Napi::Object>().Get("data"));
               if (expanded) view = WithExpansion(std::move(view));
               return Render(env, "renderMessage", std::move(view),
                             RenderOptions(env, expanded, info[1]), info[2]);
             })});
  }
  Napi::Function message_renderer = Method(pi, "registerMessageRenderer");
  if (!message_renderer.IsEmpty()) {
    // The wake message of a tool launch and the answer /fusion-continue put into the conversation:
    // their content is written for the model; the person reads the view kept in their details
    // (older messages without one keep Pi's plain rendering).
    for (const char* type : {kTaskMessageType, views::kContinueMessageType}) {
      message_renderer.Call(
          pi, {Napi::String::New(env, type), Napi::Function::New(env, RenderMessageView)});
    }
  }
}

bool AppendRunEntry(Napi::Env env, const json& view) {
  return AppendEntry(env, kRunEntryType, view);
}

bool AppendEntry(Napi::Env env, const char* custom_type, const json& data) {
  AddonState& state = State(env);
  if (state.pi.IsEmpty()) return false;
  Napi::Object pi = state.pi.Value();
  Napi::Function append = Method(pi, "appendEntry");
  if (append.IsEmpty()) return false;
  append.Call(pi, {Napi::String::New(env, custom_type), FromJson(env, data)});
  return true;
}

bool CanRenderLive(Napi::Env env) {
  return CanRender(env) && !RenderFunction(env, "liveWidget").IsEmpty();
}

Napi::Value LiveWidgetFactory(Napi::Env env, json view, Napi::Object ui) {
  NeutralizeStrings(view);  // answers and model names are model text: never terminal control
  views::KeepIntrawordStarsInView(view);
  return RenderFunction(env, "liveWidget").Call({FromJson(env, view), ui});
}

}  // namespace pi_fusion::addon
