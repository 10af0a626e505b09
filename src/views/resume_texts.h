// What /fusion-resume shows: the runs it offers, how it is used, and what a resumed run reuses;
// and the sentences every view of a failed or cancelled run uses to say it can be resumed
// (tasks/resume_hint.h). Resuming is the person's decision (there is no tool for it): the agent's
// sentence asks it to suggest the command, never to start the run again itself.
//
// Reads run directories through the FileSystem seam (ResumableRuns); the rest is pure. Every text
// that quotes a run's question passes through NeutralizeControls. Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/route_admission.h"
#include "core/file_system.h"
#include "run/run_request.h"
#include "tasks/resume_hint.h"
#include "tasks/run_catalog.h"
#include "views/lifecycle_texts.h"

namespace pi_fusion::views {

// For the person: "Resumable: /fusion-resume ac1705e2 runs only what is missing, reusing its 2
// verified candidate answers."
std::string PersonResumeText(const tasks::ResumeHint& hint);
// For the agent: the same facts, addressed to it: the person can resume the run; suggest that
// rather than starting the run again.
std::string AgentResumeText(const tasks::ResumeHint& hint);

// A run that quitting Pi cancelled, for the trace the shell keeps once Pi has exited.
struct QuitCancelledRun {
  std::string label;   // "fusion reason"
  std::string run_id;  // ours: a run id the store made, never model text
  std::optional<tasks::ResumeHint> resume;
};

// The trace a quit leaves: "Fusion: quitting Pi cancelled 2 runs.", then one line per run,
// "  fusion reason 1a2b3c4d cancelled · /fusion-resume 1a2b3c4d reuses its 2 verified candidate
// answers", or "… cancelled · nothing to resume: no candidate answer verified". Empty for no run.
std::vector<std::string> QuitTraceLines(const std::vector<QuitCancelledRun>& runs);

// The picker shows at most this many runs, newest first.
inline constexpr size_t kResumePickerMax = 12;

// The runs of `cwd` that /fusion-resume can take, newest first, at most kResumePickerMax: failed
// or cancelled (host_ended included), or interrupted (their owner gone: a resume finalizes them
// first), with at least one verified candidate answer: those tasks::RunListing::Resume() gives a
// hint.
std::vector<tasks::RunListing> ResumableRuns(FileSystem& fs, const std::string& cwd);

// One picker row, one line: "1a2b3c4d · reason · failed (child_exit_failed) · 2/3 verified ·
// Why is the sky blue?".
std::string ResumePickerLabel(const tasks::RunListing& run);

// /fusion-resume without a run where no picker can open (print and json modes): the usage and
// the runs it could take here.
std::string ResumeUsageText(const std::vector<tasks::RunListing>& resumable);

// The picker had nothing to offer.
std::string NothingToResumeText(const std::string& cwd);

// What a resumed run takes from the run it resumes and what it runs again, for its receipt:
// "Resumes reason-…: reuses candidates 1 and 2; runs candidate 3, the evaluator and the merger."
// Empty for a run started afresh.
std::string ResumedText(const run::PreparedRun& run);

// The picker's second question, for a run that failed on a model: "Resume 1a2b3c4d", with the
// same models (option 0) or another model for the route that failed (option 1).
std::string ResumeModelsTitle(const std::string& run_id);
std::vector<std::string> ResumeModelsOptions(Slot failed);
// Then the models to choose from: "Model for Candidate 3", the routes admitted now
// ("provider/model", sorted; "$current" first when the session has an admitted model).
std::string SwapModelTitle(Slot failed);
std::vector<std::string> SwapChoices(const config::RegistrySnapshot& registry);
inline constexpr char kNoOtherModelText[] =
    "/fusion-resume: no model is available for another route (none in Pi's registry passes "
    "admission); add one to Pi, or resume with the same models.";

// The notice once a resumed run started (the /fusion notice's counterpart).
std::string ResumeStartedText(const LaunchReport& launch);

}  // namespace pi_fusion::views
