// What bg_status answers the agent: this session's tasks (the live ones of this process and the
// earlier ones read from disk) as the tool's text and `details.tasks` rows (what the person sees
// of them is built from those rows by tool_result_view.h). Live progress exists only for runs of
// this process; earlier ones carry a note instead. (The lookup of one task by id:
// tasks/run_lookup.h.)
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "tasks/task_registry.h"

namespace pi_fusion::views {

// The note of a bg_status row whose run's Pi session was never saved, and how many such runs
// bg_status lists at most (the newest).
inline constexpr char kUnsavedSessionNote[] = "from a session Pi did not save";
inline constexpr size_t kUnsavedSessionRunsListed = 5;

// A row's note of a run the person can resume: bg_status tells the agent it is the person's call
// (kAgentResumeNote); the person reading the same row in the TUI is told it is theirs.
inline constexpr char kAgentResumeNote[] = "the person can resume it with ";
inline constexpr char kPersonResumeNote[] = "you can resume it with ";
// `note` (a row's note for the agent) as the person reads it.
std::string PersonNote(std::string note);

struct StatusAnswer {
  std::string text;
  nlohmann::json details;  // {tasks: [{task_id, state, workflow, label, description, question,
                           //           artifact_dir, progress|null[, note]}]}
};
// The rows of `listed` (a task is live when `live` resolves it) at `now_ms`.
StatusAnswer BuildStatusAnswer(const tasks::TaskRegistry& live,
                               const std::vector<tasks::TaskInfo>& listed, int64_t now_ms);

}  // namespace pi_fusion::views
