// What the person sees of the active runs while they work, computed from the task registry: one
// status line per running run and its landed candidates (views/live_view.h), in each of the
// three forms a Pi can show them. The binding (src/addon/progress_display.cc) picks the form its
// Pi supports and hands Pi what this returns:
//   - the TUI's live view: LiveWidgetView(), drawn by extensions/fusion-render.ts, each landed
//     answer expandable with Pi's expand key;
//   - a plain widget (no live view can be drawn): PlainWidgetRows();
//   - a Pi without widgets: one status entry per run, `ActiveRunLines::status_key` -> `line`.
// Everything shown passes NeutralizeControls as one line: a model's name or a slot note must not
// move the cursor or clear the screen.
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tasks/task_registry.h"
#include "views/live_view.h"

namespace pi_fusion::views {

// Landed candidates by run id, answers included: the person's only (never the agent's).
using LandedByRun = std::map<std::string, std::vector<LandedReport>>;

struct ActiveRunLines {
  std::string status_key;  // "pi-fusion:<run id>", its own status entry on a Pi without widgets
  std::string line;        // tasks/progress.h StatusLine
  std::vector<std::string> landed_rows;  // LandedRow of each landed candidate, as they landed
};

struct ProgressView {
  std::vector<ActiveRunLines> runs;  // the running tasks, in registry order
  // The live view's runs: LiveRunView with the shown line and one-line models and notes.
  nlohmann::json live_runs = nlohmann::json::array();
  // `landed` kept for the running tasks only (one entry each, maybe empty): an ended run's
  // answers go with its live view.
  LandedByRun landed;
};

// The view of `listed` (tasks::TaskRegistry::List) at `now_ms`, with the candidates that landed so
// far.
ProgressView BuildProgressView(const std::vector<tasks::TaskInfo>& listed, LandedByRun landed,
                               int64_t now_ms);

// The live view component's model (extensions/fusion-render.ts):
// {kind:"live", runs, hint: kActiveRunsHint, expand: kExpandHintText}. REQUIRES: runs not empty.
nlohmann::json LiveWidgetView(const ProgressView& view);

// The plain widget's rows: each run's line and its landed rows, then the hint; empty (the widget
// cleared) when no run is active.
std::vector<std::string> PlainWidgetRows(const ProgressView& view);

}  // namespace pi_fusion::views
