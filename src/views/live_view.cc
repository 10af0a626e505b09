#include "views/live_view.h"

#include <algorithm>

#include "store/run_id.h"
#include "tasks/progress.h"
#include "views/view_parts.h"

namespace pi_fusion::views {

using nlohmann::json;

std::string LandedFacts(const run::LandedCandidate& c) {
  std::string text =
      (c.reused_from ? "reused from " + std::string(store::ShortRunId(*c.reused_from))
                     : tasks::FormatElapsed(c.elapsed_ms)) +
      " · " + Grouped(c.answer.size()) + " bytes";
  if (c.tool_calls) {
    text +=
        " · " + std::to_string(*c.tool_calls) + (*c.tool_calls == 1 ? " tool call" : " tool calls");
  }
  if (c.pooled) text += " · warm";
  return text;
}

std::string LandedLine(const LandedReport& r) {
  return r.label + " " + std::string(store::ShortRunId(r.run_id)) + ": candidate " +
         std::to_string(r.candidate.slot) + " landed · " + r.candidate.model + " · " +
         LandedFacts(r.candidate);
}

json LandedEntryData(const LandedReport& r) {
  const run::LandedCandidate& c = r.candidate;
  return {{"run", {{"id", r.run_id}, {"workflow", r.workflow}}},
          {"slot", c.slot},
          {"model", c.model},
          {"elapsed_ms", c.elapsed_ms},
          {"bytes", c.answer.size()},
          {"tool_calls", c.tool_calls ? json(*c.tool_calls) : json(nullptr)},
          {"artifact", c.artifact},
          {"reused_from", c.reused_from ? json(*c.reused_from) : json(nullptr)},
          {"answer", c.answer}};
}

json LiveRunView(const tasks::TaskInfo& task, const std::vector<LandedReport>& landed,
                 int64_t now_ms) {
  std::vector<const run::LandedCandidate*> sorted;
  for (const LandedReport& r : landed) sorted.push_back(&r.candidate);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->slot < b->slot; });
  json candidates = json::array();
  for (const run::LandedCandidate* c : sorted) {
    candidates.push_back({{"slot", c->slot},
                          {"name", "Candidate " + std::to_string(c->slot)},
                          {"model", c->model},
                          {"note", LandedFacts(*c)},
                          {"markdown", c->answer}});
  }
  // Shown when expanded, where the answers push the launch notice off the screen.
  json about = json::array({"Run " + task.id, "Artifacts: " + task.artifact_dir});
  if (!task.panel.empty()) about.push_back("Panel " + task.panel);
  if (!task.estimate.empty()) about.push_back(task.estimate);
  return {{"line", tasks::StatusLine(task.progress, task.label, task.id, now_ms)},
          {"about", about},
          {"candidates", candidates}};
}

std::string LandedRow(const run::LandedCandidate& c) {
  return "  ✓ Candidate " + std::to_string(c.slot) + " " + c.model + " · " + LandedFacts(c);
}

}  // namespace pi_fusion::views
