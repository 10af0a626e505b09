#include "addon/progress_display.h"

#include <vector>

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "addon/renderers.h"
#include "core/clock.h"
#include "core/terminal_text.h"
#include "tasks/host_texts.h"
#include "tasks/live_view.h"
#include "tasks/run_view.h"

namespace pi_fusion::addon {
namespace {

constexpr char kWidgetKey[] = "pi-fusion";

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

void ShowLandedCandidate(Napi::Env env, const tasks::LandedReport& report) {
  AddonState& state = State(env);
  // A registration that ended (a /reload) cancelled its runs: nothing of theirs is shown.
  if (state.pi.IsEmpty() || state.ui_ctx.IsEmpty()) return;
  if (!UiOf(env).IsEmpty()) {
    state.landed[report.run_id].push_back(report);
    RefreshRunProgress(env);
    return;
  }
  WriteStderrLine(env, tasks::LandedLine(report));
  // json mode: the answer as an event (entry_appended) that no model turn reads.
  if (ModeOf(state.ui_ctx.Value()) == "json") {
    AppendEntry(env, tasks::kCandidateEntryType, tasks::LandedEntryData(report));
  }
}

namespace {

// The TUI's live view: one component drawn by the render module, with each landed answer
// expandable by Pi's expand key. Redrawn only when what it shows changed.
void SetLiveWidget(Napi::Env env, Napi::Object ui, const nlohmann::json& runs) {
  AddonState& state = State(env);
  Napi::Function set_widget = Method(ui, "setWidget");
  if (runs.empty()) {
    if (!state.widget_synced || !state.widget_view.empty() || !state.widget_rows.empty()) {
      set_widget.Call(ui, {Napi::String::New(env, kWidgetKey), env.Undefined()});
    }
    state.widget_view.clear();
    state.widget_rows.clear();
    state.widget_synced = true;
    return;
  }
  const nlohmann::json view = {{"kind", "live"},
                               {"runs", runs},
                               {"hint", tasks::kActiveRunsHint},
                               {"expand", tasks::kExpandHintText}};
  std::string dumped = view.dump();
  if (state.widget_synced && dumped == state.widget_view) return;
  set_widget.Call(ui, {Napi::String::New(env, kWidgetKey), LiveWidgetFactory(env, view, ui)});
  state.widget_view = std::move(dumped);
  state.widget_rows.clear();
  state.widget_synced = true;
}

}  // namespace

void RefreshRunProgress(Napi::Env env) {
  AddonState& state = State(env);
  Napi::Object ui = UiOf(env);
  if (ui.IsEmpty() || state.pi.IsEmpty()) {
    StopTicker(env);
    return;
  }
  const int64_t now = tasks::ToEpochMs(SystemClock().WallNow());
  std::vector<std::pair<std::string, std::string>> lines;  // status key, text
  std::vector<std::vector<std::string>> landed_rows;       // per line: its landed candidates
  nlohmann::json live_runs = nlohmann::json::array();
  std::map<std::string, std::vector<tasks::LandedReport>> still_landed;
  for (const tasks::TaskInfo& task : state.tasks->List()) {
    if (task.state != tasks::TaskState::kRunning) continue;
    // One line each; a model's name or a slot note must not move the cursor or clear the screen.
    lines.emplace_back(
        "pi-fusion:" + task.id,
        NeutralizeControls(tasks::StatusLine(task.progress, task.label, task.id, now),
                           TextShape::kSingleLine));
    std::vector<tasks::LandedReport>& landed = still_landed[task.id];
    if (auto it = state.landed.find(task.id); it != state.landed.end()) {
      landed = std::move(it->second);  // state.landed is replaced by still_landed below
    }
    std::vector<std::string> rows;
    for (const tasks::LandedReport& r : landed) {
      rows.push_back(NeutralizeControls(tasks::LandedRow(r.candidate), TextShape::kSingleLine));
    }
    landed_rows.push_back(std::move(rows));
    nlohmann::json live_run = tasks::LiveRunView(task, landed, now);
    live_run["line"] = lines.back().second;
    for (nlohmann::json& candidate : live_run["candidates"]) {  // rows: one line each
      for (const char* key : {"model", "note"}) {
        candidate[key] =
            NeutralizeControls(candidate[key].get<std::string>(), TextShape::kSingleLine);
      }
    }
    live_runs.push_back(std::move(live_run));
  }
  state.landed = std::move(still_landed);  // an ended run's answers go with its live view
  const bool live = ModeOf(state.ui_ctx.Value()) == "tui" && CanRenderLive(env);
  Napi::Function set_widget = Method(ui, "setWidget");
  if (!set_widget.IsEmpty() && live) {
    SetLiveWidget(env, ui, live_runs);
  } else if (!set_widget.IsEmpty()) {
    std::vector<std::string> rows;
    for (size_t i = 0; i < lines.size(); ++i) {
      rows.push_back(lines[i].second);
      rows.insert(rows.end(), landed_rows[i].begin(), landed_rows[i].end());
    }
    if (!rows.empty()) rows.push_back(tasks::kActiveRunsHint);
    if (!state.widget_synced || rows != state.widget_rows || !state.widget_view.empty()) {
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
  } else {
    Napi::Function set_status = Method(ui, "setStatus");
    if (!set_status.IsEmpty()) {
      std::set<std::string> shown;
      for (const auto& [key, text] : lines) {
        set_status.Call(ui, {Napi::String::New(env, key), Napi::String::New(env, text)});
        shown.insert(key);
      }
      for (const std::string& key : state.status_keys) {
        if (shown.count(key) == 0) {
          set_status.Call(ui, {Napi::String::New(env, key), env.Undefined()});
        }
      }
      state.status_keys = std::move(shown);
    }
  }
  if (lines.empty()) {
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
