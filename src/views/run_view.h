// Plain view data for the person at the keyboard: what extensions/fusion-render.ts draws for a
// /fusion message, a tool call and a tool result. Every decision (state, cut, text, number) is
// made here; the render module only lays the parts out. The shapes (see fusion-render.ts):
//   run  {kind:"run", title, question?, state, status, slots?[{name, state, model?}], usage?,
//         answer?{preview, markdown, note?}, candidates?[{id, slot?, name?, model?, markdown?,
//         note?, tools?{summary, calls[{state, text}], more?}}], agreements?, conflicts?[{topic,
//         positions, resolution}], roles?[line], artifacts?{dir, gone?, note?}, notes?, error?,
//         report? (a completed run: how to get its HTML report)}
//   list {kind:"list", title, items:[run], empty?}
//   note {kind:"note", level, text}
//   call {title, question?}
// The run views of a running, completed and failed run are built here; a tool result's view
// (list, note, run) from its details in tool_result_view.h; a finished run's candidates,
// evaluation and roles in run_expansion.h; the pieces they share in view_parts.h. What the model
// needs (hashes, "Do not poll.", exact texts) stays in the tool result's content (the agent's
// answers: result_answer.h, status_answer.h); none of it is copied into a view.
//
// Pure except TerminalRunView (reads the run directory through the FileSystem seam); thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "store/verify.h"
#include "tasks/progress.h"
#include "tasks/task_registry.h"
#include "views/view_parts.h"

namespace pi_fusion::views {

// The hints shown while runs are active: Pi cannot stop a quit or reload.
inline constexpr char kActiveRunHint[] =
    "Quitting or reloading Pi cancels this run; Escape ends only the agent's turn.";
inline constexpr char kActiveRunsHint[] =
    "Quitting or reloading Pi cancels active Fusion runs (Escape ends only the agent's turn).";

// What a view of one run is built from.
struct RunFacts {
  std::string run_id;
  std::string workflow;
  std::string question;  // what the person asked (tasks::TaskInfo::question); "" shows none
  std::string artifact_dir;
  std::optional<tasks::ProgressSnapshot> progress;  // known while this process saw the run
};

// A run that is still active: stage, slots, elapsed time and the quit/reload hint.
nlohmann::json RunningRunView(const RunFacts& facts, const tasks::ProgressSnapshot& progress,
                              int64_t now_ms);

// A completed, verified run: the answer (preview and whole), models, usage and request count.
nlohmann::json CompletedRunView(const RunFacts& facts, const store::VerifiedResult& verified);

// A failed or cancelled run, from its failure view (store/failure_view.h) when readable, the live
// progress otherwise; `cancelled_by` says who asked. A `resumable` object in `failure_view`
// (tasks/resume_hint.h) adds the person's resume sentence as the last note.
nlohmann::json FailedRunView(const RunFacts& facts, const nlohmann::json& failure_view,
                             bool cancelled, tasks::CancelSource cancelled_by, int64_t now_ms);

// The view of a run that has just ended, from its directory: verified completion (answer
// included) or the failure view; cancellations say who asked, and a run its manifest says can be
// resumed says how. Runs on a worker thread.
nlohmann::json TerminalRunView(FileSystem& fs, const tasks::TaskInfo& task, int64_t now_ms);

// The header of a tool call row, from the tool's (possibly partial) arguments.
nlohmann::json CallView(std::string_view tool, const nlohmann::json& args);

// What every run view starts with: kind, title, state, status, the short question and the
// artifact directory.
nlohmann::json BaseView(const RunFacts& facts, std::string_view state, const std::string& status);
// The five slots of a completed run with the models of result details' `models`: all done, but
// the candidate of result details' `degraded` record (failed or cut) when there is one, and
// candidate 3 of an adaptive run whose candidates 1 and 2 agreed (`adaptive`: skipped, never
// asked).
nlohmann::json CompletedSlots(const nlohmann::json& models,
                              const nlohmann::json& degraded = nlohmann::json(),
                              const nlohmann::json& adaptive = nlohmann::json());
// The notes a completed run's views show before its answer, from its result details: a degraded
// answer's sentence first, then the shared-model note, then one line per failed declared source.
// An empty array when there is none.
nlohmann::json CompletedNotes(const nlohmann::json& details);

}  // namespace pi_fusion::views
