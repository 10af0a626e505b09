#include "views/resume_texts.h"

#include <algorithm>
#include <optional>

#include "config/config_constants.h"
#include "core/terminal_text.h"
#include "core/utf8.h"
#include "run/resume_arguments.h"
#include "run/resume_inputs.h"
#include "store/run_id.h"
#include "tasks/resume_hint.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::views {
namespace {

// A question is cut to this many bytes in a picker row.
constexpr size_t kQuestionMaxBytes = 80;

// "1", "1 and 2", "1, 2 and 3".
std::string Slots(const std::vector<int>& slots) {
  std::string out;
  for (size_t i = 0; i < slots.size(); ++i) {
    if (i > 0) out += i + 1 == slots.size() ? " and " : ", ";
    out += std::to_string(slots[i]);
  }
  return out;
}

// "a, b and c".
std::string Listed(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += i + 1 == parts.size() ? " and " : ", ";
    out += parts[i];
  }
  return out;
}

// "its 2 verified candidate answers", "its verified candidate answer", "its 3 verified candidate
// answers and its evaluation".
std::string WhatItReuses(const tasks::ResumeHint& hint) {
  const size_t n = hint.candidate_slots.size();
  std::string what = n == 1 ? "its verified candidate answer"
                            : "its " + std::to_string(n) + " verified candidate answers";
  if (hint.evaluation) what += " and its evaluation";
  return what;
}

// " Candidate 3 runs on local/b instead of local/a.": the routes the person swapped
// (/fusion-resume --slot), as admitted now.
std::string SwappedText(const run::PreparedRun& run) {
  std::string text;
  for (const run::RouteSwap& swap : run.request.route_swaps) {
    const config::ModelInfo& now = run.models.route(swap.slot).model;
    text += " " + std::string(SlotLabel(swap.slot)) + " runs on " + now.provider + "/" + now.id +
            " instead of " + run::SlotRoute(run.resume->manifest.models, swap.slot).QualifiedId() +
            ".";
  }
  return NeutralizeControls(text, TextShape::kSingleLine);
}

// " If Candidate 3's model keeps failing, you can resume on another: /fusion-resume ac1705e2
// --slot 3=provider/model." — and, when two candidates verified and the third failed, that
// quorum 2 accepts two. Empty when the run did not fail on a model.
std::string SwapAdvice(const tasks::ResumeHint& hint, std::string_view you) {
  if (!hint.failed_route) return "";
  const Slot slot = *hint.failed_route;
  std::string text = " If " + std::string(SlotLabel(slot)) + "'s model keeps failing, " +
                     std::string(you) + " resume on another: " + tasks::ResumeCommand(hint.run_id) +
                     " --slot " + run::SwapSlotName(slot) + "=provider/model.";
  if (RoleOf(slot) == Role::kCandidate && hint.candidate_slots.size() == 2) {
    text +=
        " With quorum 2 (/fusion-models), a run accepts two verified candidate answers when "
        "the third fails.";
  }
  return text;
}

}  // namespace

std::string PersonResumeText(const tasks::ResumeHint& hint) {
  return "Resumable: " + tasks::ResumeCommand(hint.run_id) +
         " runs only what is missing, reusing " + WhatItReuses(hint) + "." +
         SwapAdvice(hint, "you can");
}

std::string AgentResumeText(const tasks::ResumeHint& hint) {
  return "Resumable: the person can resume this run with " + tasks::ResumeCommand(hint.run_id) +
         ", which runs only what is missing, reusing " + WhatItReuses(hint) +
         ". Suggest that to them rather than starting the run again; resuming is their decision." +
         SwapAdvice(hint, "they can");
}

std::vector<std::string> QuitTraceLines(const std::vector<QuitCancelledRun>& runs) {
  if (runs.empty()) return {};
  std::vector<std::string> lines{"Fusion: quitting Pi cancelled " + std::to_string(runs.size()) +
                                 (runs.size() == 1 ? " run." : " runs.")};
  for (const QuitCancelledRun& run : runs) {
    std::string line =
        "  " + run.label + " " + std::string(store::ShortRunId(run.run_id)) + " cancelled · ";
    line += run.resume ? tasks::ResumeCommand(run.run_id) + " reuses " + WhatItReuses(*run.resume)
                       : "nothing to resume: no candidate answer verified";
    lines.push_back(NeutralizeControls(line, TextShape::kSingleLine));
  }
  return lines;
}

std::vector<tasks::RunListing> ResumableRuns(FileSystem& fs, const std::string& cwd) {
  std::vector<tasks::RunListing> out;
  for (tasks::RunListing& run : tasks::ListRuns(fs, cwd)) {
    if (!run.Resume()) continue;
    out.push_back(std::move(run));
    if (out.size() == kResumePickerMax) break;
  }
  return out;
}

std::string ResumePickerLabel(const tasks::RunListing& run) {
  const store::Manifest& m = *run.manifest;
  const std::optional<tasks::ResumeHint> hint = run.Resume();
  const size_t verified = hint ? hint->candidate_slots.size() : 0;
  std::string state = run.State();
  if (m.error && state != "cancelled") state += " (" + m.error->code + ")";
  std::string question = TruncateUtf8(run.question, kQuestionMaxBytes);
  if (question.size() < run.question.size()) question += "…";
  const std::string label = std::string(store::ShortRunId(run.run_id)) + " · " + m.workflow +
                            " · " + state + " · " + std::to_string(verified) + "/" +
                            std::to_string(workflow::kCandidateCount) + " verified" +
                            (question.empty() ? "" : " · " + question);
  return NeutralizeControls(label, TextShape::kSingleLine);
}

std::string ResumeUsageText(const std::vector<tasks::RunListing>& resumable) {
  std::string text = "Usage: /fusion-resume <run id or prefix>";
  if (resumable.empty()) return text + " (no run here can be resumed)";
  text += ". Resumable runs here, newest first:";
  for (const tasks::RunListing& run : resumable) text += "\n  " + ResumePickerLabel(run);
  return text;
}

std::string NothingToResumeText(const std::string& cwd) {
  return "No Fusion run in " + NeutralizeControls(cwd, TextShape::kSingleLine) +
         " can be resumed: none failed or was cancelled with a verified candidate answer.";
}

std::string ResumedText(const run::PreparedRun& run) {
  if (!run.resume) return "";
  std::vector<int> reused;
  for (const store::ReusedAttempt& a : run.resume->candidates) {
    reused.push_back(a.record.key.slot.value_or(0));
  }
  std::vector<int> missing;
  for (int slot = 1; slot <= 3; ++slot) {
    if (std::find(reused.begin(), reused.end(), slot) == reused.end()) missing.push_back(slot);
  }
  const bool evaluation = run::ReusedEvaluationOf(run) != nullptr;
  std::vector<std::string> runs;
  if (!missing.empty()) {
    runs.push_back((missing.size() == 1 ? "candidate " : "candidates ") + Slots(missing));
  }
  if (!evaluation) runs.push_back("the evaluator");
  runs.push_back("the merger");
  return "Resumes " + run.resume->manifest.run_id + ": reuses " +
         (reused.size() == 1 ? "candidate " : "candidates ") + Slots(reused) +
         (evaluation ? " and the evaluation" : "") + "; runs " + Listed(runs) + "." +
         SwappedText(run);
}

std::string ResumeModelsTitle(const std::string& run_id) {
  return "Resume " + std::string(store::ShortRunId(run_id));
}

std::vector<std::string> ResumeModelsOptions(Slot failed) {
  return {"Resume with the same models",
          "Resume with another model for " + std::string(SlotLabel(failed))};
}

std::string SwapModelTitle(Slot failed) { return "Model for " + std::string(SlotLabel(failed)); }

std::vector<std::string> SwapChoices(const config::RegistrySnapshot& registry) {
  std::vector<std::string> routes;
  for (const config::ModelInfo& m : registry.models) {
    if (!config::RouteRefusal(m)) routes.push_back(m.QualifiedId());
  }
  std::sort(routes.begin(), routes.end());
  if (registry.current && !config::RouteRefusal(*registry.current)) {
    routes.insert(routes.begin(), std::string(config::kCurrentSelection));
  }
  // A model's id is the registry's text: shown, never obeyed.
  for (std::string& route : routes) route = NeutralizeControls(route, TextShape::kSingleLine);
  return routes;
}

std::string ResumeStartedText(const LaunchReport& launch) {
  std::string text = "Started " + tasks::TaskLabel(store::RunIdWorkflow(launch.run_id)) + " (" +
                     launch.run_id + ")… Artifacts: " + launch.artifact_dir;
  if (!launch.resumed_text.empty()) text += "\n" + launch.resumed_text;
  if (!launch.warning_text.empty()) text += "\n" + launch.warning_text;
  if (!launch.estimate_text.empty()) text += "\n" + launch.estimate_text;
  return text;
}

}  // namespace pi_fusion::views
