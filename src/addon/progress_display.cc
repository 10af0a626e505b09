#include "addon/progress_display.h"

#include <vector>

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "addon/renderers.h"
#include "core/clock.h"
#include "views/lifecycle_texts.h"
#include "views/live_view.h"
#include "views/progress_view.h"

namespace pi_fusion::addon {
namespace {

constexpr char kWidgetKey[] = "pi-fusion";
// Pi's footer status of what the runs cost (ShowFusionCost); never a run's own key.
constexpr char kCostStatusKey[] = "pi-fusion-cost";

void StopTicker(Napi::Env env) {
  AddonState& state = State(env);
  if (state.ticker.IsEmpty()) return;
  env.Global().Get("clearInterval").As<Napi::Function>().Call({state.ticker.Value()});
  state.ticker.Reset();
}

void StartTicker(Napi::Env env) {
  AddonState& state = State(env);
  if (!state.ticker.IsEmpty()) return;
  Napi::Function tick = Napi::Function::New(
      env, [](const Napi::CallbackInfo& info) { RefreshRunProgress(info.Env()); }, "fusionTick");
  Napi::Value timer = env.Global()
                          .Get("setInterval")
                          .As<Napi::Function>()
                          .Call({tick, Napi::Number::New(env, 1000)});
  if (timer.IsObject()) {
    Napi::Function unref = Method(timer.As<Napi::Object>(), "unref");
    if (!unref.IsEmpty()) unref.Call(timer, {});
  }
  state.ticker = Napi::Persistent(timer);
}

}  // namespace

std::string ModeOf(Napi::Object ctx) {
  Napi::Value mode = ctx.Get("mode");
  if (mode.IsString()) return mode.As<Napi::String>().Utf8Value();
  return ctx.Get("hasUI").ToBoolean().Value() ? "tui" : "print";
}

Napi::Object UiOf(Napi::Env env) {
  AddonState& state = State(env);
  if (state.ui_ctx.IsEmpty()) return Napi::Object();
  Napi::Object ctx = state.ui_ctx.Value();
  if (!ctx.Get("hasUI").ToBoolean().Value() || !ctx.Get("ui").IsObject()) return Napi::Object();
  return ctx.Get("ui").As<Napi::Object>();
}

void ShowRunProgress(Napi::Env env, const std::string& line) {
  if (UiOf(env).IsEmpty()) {
    WriteStderrLine(env, line);
    return;
  }
  RefreshRunProgress(env);
}

void ShowLandedCandidate(Napi::Env env, const views::LandedReport& report) {
  AddonState& state = State(env);
  // A registration that ended (a /reload) cancelled its runs: nothing of theirs is shown.
  if (state.pi.IsEmpty() || state.ui_ctx.IsEmpty()) return;
  const std::string mode = ModeOf(state.ui_ctx.Value());
  // json and RPC mode: the answer as an event (entry_appended) that no model turn reads.
  if (mode == "json" || mode == "rpc") {
    AppendEntry(env, views::kCandidateEntryType, views::LandedEntryData(report));
  }
  if (!UiOf(env).IsEmpty()) {
    state.landed[report.run_id].push_back(report);
    RefreshRunProgress(env);
    return;
  }
  WriteStderrLine(env, views::LandedLine(report));
}

namespace {

// The TUI's live view: one component drawn by the render module, with each landed answer
// expandable by Pi's expand key. Redrawn only when what it shows changed.
void SetLiveWidget(Napi::Env env, Napi::Object ui, const views::ProgressView& view) {
  AddonState& state = State(env);
  Napi::Function set_widget = Method(ui, "setWidget");
  if (view.runs.empty()) {
    if (!state.widget_synced || !state.widget_view.empty() || !state.widget_rows.empty()) {
      set_widget.Call(ui, {Napi::String::New(env, kWidgetKey), env.Undefined()});
    }
    state.widget_view.clear();
    state.widget_rows.clear();
    state.widget_synced = true;
    return;
  }
  const nlohmann::json live = views::LiveWidgetView(view);
  std::string dumped = live.dump();
  if (state.widget_synced && dumped == state.widget_view) return;
  set_widget.Call(ui, {Napi::String::New(env, kWidgetKey), LiveWidgetFactory(env, live, ui)});
  state.widget_view = std::move(dumped);
  state.widget_rows.clear();
  state.widget_synced = true;
}

// A widget of plain rows, where no live view can be drawn. Set again only when its rows changed.
void SetPlainWidget(Napi::Env env, Napi::Object ui, Napi::Function set_widget,
                    std::vector<std::string> rows) {
  AddonState& state = State(env);
  if (state.widget_synced && rows == state.widget_rows && state.widget_view.empty()) return;
  Napi::Value shown = env.Undefined();
  if (!rows.empty()) {
    Napi::Array array = Napi::Array::New(env, rows.size());
    for (size_t i = 0; i < rows.size(); ++i) array.Set(i, Napi::String::New(env, rows[i]));
    shown = array;
  }
  set_widget.Call(ui, {Napi::String::New(env, kWidgetKey), shown});
  state.widget_rows = std::move(rows);
  state.widget_view.clear();
  state.widget_synced = true;
}

// A Pi without widgets: one status entry per run; an ended run's entry is cleared.
void SetStatuses(Napi::Env env, Napi::Object ui, const std::vector<views::ActiveRunLines>& runs) {
  AddonState& state = State(env);
  Napi::Function set_status = Method(ui, "setStatus");
  if (set_status.IsEmpty()) return;
  std::set<std::string> shown;
  for (const views::ActiveRunLines& run : runs) {
    set_status.Call(ui, {Napi::String::New(env, run.status_key), Napi::String::New(env, run.line)});
    shown.insert(run.status_key);
  }
  for (const std::string& key : state.status_keys) {
    if (shown.count(key) == 0) set_status.Call(ui, {Napi::String::New(env, key), env.Undefined()});
  }
  state.status_keys = std::move(shown);
}

}  // namespace

void ShowFusionCost(Napi::Env env, double run_cost_usd) {
  AddonState& state = State(env);
  state.runs_cost_usd += run_cost_usd;
  Napi::Object ui = UiOf(env);
  if (ui.IsEmpty()) return;
  Napi::Function set_status = Method(ui, "setStatus");
  if (set_status.IsEmpty()) return;
  set_status.Call(ui, {Napi::String::New(env, kCostStatusKey),
                       Napi::String::New(env, views::FooterCostText(state.runs_cost_usd))});
}

void RefreshRunProgress(Napi::Env env) {
  AddonState& state = State(env);
  Napi::Object ui = UiOf(env);
  if (ui.IsEmpty() || state.pi.IsEmpty()) {
    StopTicker(env);
    return;
  }
  const int64_t now = tasks::ToEpochMs(SystemClock().WallNow());
  views::ProgressView view =
      views::BuildProgressView(state.tasks->List(), std::move(state.landed), now);
  state.landed = std::move(view.landed);
  const bool live = ModeOf(state.ui_ctx.Value()) == "tui" && CanRenderLive(env);
  Napi::Function set_widget = Method(ui, "setWidget");
  if (!set_widget.IsEmpty() && live) {
    SetLiveWidget(env, ui, view);
  } else if (!set_widget.IsEmpty()) {
    SetPlainWidget(env, ui, set_widget, views::PlainWidgetRows(view));
  } else {
    SetStatuses(env, ui, view.runs);
  }
  if (view.runs.empty()) {
    StopTicker(env);
  } else {
    StartTicker(env);
  }
}

void ClearRunProgress(Napi::Env env) {
  StopTicker(env);
  State(env).status_keys.clear();
  State(env).widget_synced = false;  // a new session's UI: draw afresh
}

}  // namespace pi_fusion::addon
