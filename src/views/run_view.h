// Plain view data for the person at the keyboard: what extensions/fusion-render.ts draws for a
// /fusion message, a tool call and a tool result. Every decision (state, cut, text, number) is
// made here; the render module only lays the parts out. The shapes (see fusion-render.ts):
//   run  {kind:"run", title, question?, state, status, slots?, usage?, answer?{preview, markdown,
//         note?}, candidates?[{id, model?, markdown?, note?, tools?{summary, calls[{state,
//         text}], more?}}], agreements?, conflicts?[{topic,
//         positions, resolution}], roles?[line], artifacts?{dir, gone?, note?}, notes?, error?}
//   list {kind:"list", title, items:[run], empty?}
//   note {kind:"note", level, text}
//   call {title, question?}
// (A tool result's view is built from these in tool_result_view.h.)
// What the model needs (hashes, "Do not poll.", exact texts) stays in the tool result's content;
// none of it is copied into a view.
//
// Pure except ExpandRun (reads the run directory through the FileSystem seam); thread-safe.
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

namespace pi_fusion::views {

// Collapsed answers show at most this many lines / bytes (cut at a line end).
inline constexpr size_t kPreviewMaxLines = 12;
inline constexpr size_t kPreviewMaxBytes = 1200;
// A short form of the question for headers.
inline constexpr size_t kQuestionMaxChars = 72;

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

std::string ShortQuestion(std::string_view description);
// "14,210 tokens · $0.0123" from a Pi Usage object ({} or null: "").
std::string UsageText(const nlohmann::json& usage);
// "8 model requests · " for a count (1: "1 model request · "), "" for anything else (a run
// recorded before requests were counted).
std::string RequestsPrefix(const nlohmann::json& model_requests);
// RequestsPrefix + UsageText: "8 model requests · 14,210 tokens · $0.0123"; "" without usage.
// With a completed run's `estimate` (result details; budget::EstimateSummaryJson), the bill is
// followed by what was estimated before the run: "… · $0.0008 · estimated $0.0011 expected (from
// earlier runs), $0.2447 worst case". Null or malformed: nothing is added.
std::string RequestsAndUsageText(const nlohmann::json& model_requests, const nlohmann::json& usage,
                                 const nlohmann::json& estimate = nullptr);

// "estimated $0.0011 expected (from earlier runs), $0.2447 worst case" (or "(a quarter of each
// output cap)", "(partly from earlier runs)"); "" for null or malformed.
std::string EstimateText(const nlohmann::json& estimate);
// "Candidate 1 (p/m): 2 model requests · 1,234 tokens · $0.0012" per row of
// store::UsageByRoleJson ("Evaluator", "Repair", "Merger" for the others).
std::vector<std::string> RoleUsageLines(const nlohmann::json& usage_by_role);
// {preview, markdown, note}: the preview is the first lines of `markdown`, cut at a line end.
nlohmann::json AnswerView(const std::string& markdown, const std::string& note);

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

// The expansion of a finished run: the candidates A/B/C with their models, answers and (for the
// tool-using workflows) the tool calls each made (run/tool_call_list.h), the evaluator's
// agreements and conflicts with resolutions, the usage and cost per role (RoleUsageLines), and
// the artifact directory, or a note that the artifacts are gone. Merged into a run view by the
// caller.
nlohmann::json ExpandRun(FileSystem& fs, const std::string& run_dir);

// The header of a tool call row, from the tool's (possibly partial) arguments.
nlohmann::json CallView(std::string_view tool, const nlohmann::json& args);

// The pieces the tool-result views (tool_result_view.h) share with the views above.
// The string at `key` of a JSON object; "" when it is absent or not a string.
std::string StringAt(const nlohmann::json& object, const char* key);
// 14210 -> "14,210".
std::string Grouped(uint64_t n);
// What every run view starts with: kind, title, state, status, the short question and the
// artifact directory.
nlohmann::json BaseView(const RunFacts& facts, std::string_view state, const std::string& status);
// The five slots of a completed run with the models of result details' `models`: all done, but
// the candidate of result details' `degraded` record (failed or cut) when there is one.
nlohmann::json CompletedSlots(const nlohmann::json& models,
                              const nlohmann::json& degraded = nlohmann::json());
// config::SharedModelText of result details' `models` (`candidates`: three "provider/model"); ""
// when the candidates run on three models or the models cannot be read.
std::string SharedModelNote(const nlohmann::json& models);
// The notes a completed run's views show before its answer, from its result details: a degraded
// answer's sentence first, then the shared-model note, then one line per failed declared source.
// An empty array when there is none.
nlohmann::json CompletedNotes(const nlohmann::json& details);

}  // namespace pi_fusion::views
