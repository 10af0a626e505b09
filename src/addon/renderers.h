// The person's view of Fusion in Pi's TUI: tool call and result rows, the /fusion answer entry,
// and the wake message of tool launches. C++ builds the view data (views/run_view.h); the render
// module (extensions/fusion-render.ts, handed over by the loader) turns it into pi-tui
// components. Without that module, or on a Pi without these APIs, nothing here is registered and
// Pi's plain rendering and notifications remain. JS thread only.
#pragma once

#include <napi.h>

#include <string>

#include <nlohmann/json.hpp>

namespace pi_fusion::addon {

// The custom entry type of a finished /fusion run (display-only: never sent to the model).
inline constexpr char kRunEntryType[] = "fusion-run";
// The custom message type that wakes the agent after a tool launch (sent to the model).
inline constexpr char kTaskMessageType[] = "fusion-task";

// Keeps `render` (the module's exports) when it has what the views need.
void AdoptRenderModule(Napi::Env env, Napi::Value render);
// True when the render module is present (the TUI can show rendered views).
bool CanRender(Napi::Env env);
// True when, in addition, this Pi renders run entries (it offers registerEntryRenderer).
bool CanRenderRunEntries(Napi::Env env);

// Sets renderCall/renderResult on a tool definition object.
void AttachToolRenderers(Napi::Env env, Napi::Object tool, const std::string& name);
// Registers the entry and message renderers with `pi` (each only if Pi offers the API).
void RegisterViewRenderers(Napi::Env env, Napi::Object pi);

// Appends a display-only entry holding `view` (a run view) when Pi offers appendEntry and a
// renderer exists; false otherwise (the caller then falls back to a notification).
bool AppendRunEntry(Napi::Env env, const nlohmann::json& view);
// Appends a display-only entry of `custom_type` (never sent to the model) when Pi offers
// appendEntry; json and rpc clients get it as an `entry_appended` event.
bool AppendEntry(Napi::Env env, const char* custom_type, const nlohmann::json& data);

// True when the render module can draw the TUI's live view of active runs.
bool CanRenderLive(Napi::Env env);
// The widget factory (tui, theme) => component that draws `view` (views/live_view.h), expanded
// while Pi's tool output is (ui.getToolsExpanded()). REQUIRES: CanRenderLive(env).
Napi::Value LiveWidgetFactory(Napi::Env env, nlohmann::json view, Napi::Object ui);

}  // namespace pi_fusion::addon
