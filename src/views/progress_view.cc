#include "views/progress_view.h"

#include <utility>

#include "core/terminal_text.h"
#include "tasks/progress.h"
#include "views/host_texts.h"
#include "views/run_view.h"

namespace pi_fusion::views {
namespace {

std::string OneLine(const std::string& text) {
  return NeutralizeControls(text, TextShape::kSingleLine);
}

}  // namespace

ProgressView BuildProgressView(const std::vector<tasks::TaskInfo>& listed, LandedByRun landed,
                               int64_t now_ms) {
  ProgressView view;
  for (const tasks::TaskInfo& task : listed) {
    if (task.state != tasks::TaskState::kRunning) continue;
    ActiveRunLines run;
    run.status_key = "pi-fusion:" + task.id;
    run.line = OneLine(tasks::StatusLine(task.progress, task.label, task.id, now_ms));
    std::vector<LandedReport>& kept = view.landed[task.id];
    if (auto it = landed.find(task.id); it != landed.end()) kept = std::move(it->second);
    for (const LandedReport& r : kept) run.landed_rows.push_back(OneLine(LandedRow(r.candidate)));
    nlohmann::json live_run = LiveRunView(task, kept, now_ms);
    live_run["line"] = run.line;
    for (nlohmann::json& candidate : live_run["candidates"]) {
      for (const char* key : {"model", "note"}) {
        candidate[key] = OneLine(candidate[key].get<std::string>());
      }
    }
    view.live_runs.push_back(std::move(live_run));
    view.runs.push_back(std::move(run));
  }
  return view;
}

nlohmann::json LiveWidgetView(const ProgressView& view) {
  return {{"kind", "live"},
          {"runs", view.live_runs},
          {"hint", kActiveRunsHint},
          {"expand", kExpandHintText}};
}

std::vector<std::string> PlainWidgetRows(const ProgressView& view) {
  std::vector<std::string> rows;
  for (const ActiveRunLines& run : view.runs) {
    rows.push_back(run.line);
    rows.insert(rows.end(), run.landed_rows.begin(), run.landed_rows.end());
  }
  if (!rows.empty()) rows.push_back(kActiveRunsHint);
  return rows;
}

}  // namespace pi_fusion::views
