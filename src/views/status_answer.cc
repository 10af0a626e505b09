#include "views/status_answer.h"

#include "tasks/resume_hint.h"

namespace pi_fusion::views {

namespace {

// The completed run that resumed `task`: as read from disk, else one of `listed` (a resume this
// process ran); "" when none did.
std::string ResumedAs(const tasks::TaskRegistry& live, const tasks::TaskInfo& task,
                      const std::vector<tasks::TaskInfo>& listed) {
  if (!task.resumed_as.empty()) return task.resumed_as;
  for (const tasks::TaskInfo& other : listed) {
    if (other.resumed_from != task.id) continue;
    // A live task's state is the registry's, which is current; the list's copy may be older.
    tasks::TaskLookup now = live.Resolve(other.id);
    const tasks::TaskState state = now.ok() ? now->state : other.state;
    if (state == tasks::TaskState::kCompleted) return other.id;
  }
  return "";
}

}  // namespace

std::string PersonNote(std::string note) {
  const std::string agent_words = kAgentResumeNote;
  if (const size_t at = note.find(agent_words); at != std::string::npos) {
    note.replace(at, agent_words.size(), kPersonResumeNote);
  }
  return note;
}

StatusAnswer BuildStatusAnswer(const tasks::TaskRegistry& live,
                               const std::vector<tasks::TaskInfo>& listed, int64_t now_ms) {
  if (listed.empty()) {
    return {"No background tasks in this session.", {{"tasks", nlohmann::json::array()}}};
  }
  StatusAnswer view;
  nlohmann::json rows = nlohmann::json::array();
  for (const tasks::TaskInfo& task : listed) {
    const std::string state_name(tasks::TaskStateName(task.state));
    const bool is_live = live.Resolve(task.id).ok();
    const std::string resumed_as =
        task.state == tasks::TaskState::kRunning ? "" : ResumedAs(live, task, listed);
    std::string detail;
    if (is_live && task.state == tasks::TaskState::kRunning) {
      detail = tasks::StageSummary(task.progress) + ", " +
               tasks::FormatElapsed(task.progress.ElapsedMs(now_ms)) + " elapsed";
    } else if (!is_live) {
      detail = std::string(task.unsaved_session ? kUnsavedSessionNote : "earlier Pi process") +
               (task.terminal_text.empty() ? "" : "; " + task.terminal_text);
      // The agent reads this list: resuming is the person's call, so it is named as theirs.
      if (task.resume && resumed_as.empty()) {
        detail += "; " + std::string(kAgentResumeNote) + tasks::ResumeCommand(task.id);
      }
    } else if (task.state == tasks::TaskState::kKilled &&
               task.cancelled_by != tasks::CancelSource::kUnknown) {
      detail = tasks::CancelledText(task.cancelled_by);
    }
    // A completed answer that lacks a candidate or a declared source is not a plain "completed".
    if (task.state == tasks::TaskState::kCompleted && !task.answer_note.empty()) {
      detail += (detail.empty() ? "" : "; ") + task.answer_note;
    }
    if (!task.panel.empty())
      detail += (detail.empty() ? "" : "; ") + std::string("panel ") + task.panel;
    // Its answer exists in the run that resumed it: nobody should pay for it twice.
    if (!resumed_as.empty()) {
      detail += (detail.empty() ? "" : "; ") + std::string("resumed as ") + resumed_as;
    }
    // The text says "cancelled", the word of every view; the details keep the contract's state.
    const std::string shown = task.state == tasks::TaskState::kKilled ? "cancelled" : state_name;
    view.text += task.id + "  " + shown + "  " + task.label +
                 (detail.empty() ? "" : "  (" + detail + ")") + "\n";
    nlohmann::json row = {
        {"task_id", task.id},
        {"state", state_name},
        {"workflow", task.workflow},
        {"label", task.label},
        {"description", task.description},
        {"question", task.question},
        {"artifact_dir", task.artifact_dir},
        {"progress", is_live ? tasks::ProgressJson(task.progress, task.id, task.workflow, now_ms)
                             : nlohmann::json(nullptr)}};
    if (!detail.empty() && !(is_live && task.state == tasks::TaskState::kRunning))
      row["note"] = detail;
    if (!task.panel.empty()) row["panel"] = task.panel;
    rows.push_back(std::move(row));
  }
  view.details = {{"tasks", rows}};
  return view;
}

}  // namespace pi_fusion::views
