#include "views/resume_texts.h"

#include <algorithm>
#include <optional>

#include "core/terminal_text.h"
#include "core/utf8.h"
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

}  // namespace

std::string PersonResumeText(const tasks::ResumeHint& hint) {
  return "Resumable: " + tasks::ResumeCommand(hint.run_id) +
         " runs only what is missing, reusing " + WhatItReuses(hint) + ".";
}

std::string AgentResumeText(const tasks::ResumeHint& hint) {
  return "Resumable: the person can resume this run with " + tasks::ResumeCommand(hint.run_id) +
         ", which runs only what is missing, reusing " + WhatItReuses(hint) +
         ". Suggest that to them rather than starting the run again; resuming is their decision.";
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
         (evaluation ? " and the evaluation" : "") + "; runs " + Listed(runs) + ".";
}

std::string ResumeStartedText(const LaunchReport& launch) {
  std::string text = "Started " + tasks::TaskLabel(store::RunIdWorkflow(launch.run_id)) + " (" +
                     launch.run_id + ")… Artifacts: " + launch.artifact_dir;
  if (!launch.resumed_text.empty()) text += "\n" + launch.resumed_text;
  if (!launch.estimate_text.empty()) text += "\n" + launch.estimate_text;
  return text;
}

}  // namespace pi_fusion::views
