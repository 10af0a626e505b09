#include "cli/run_show.h"

#include "core/terminal_text.h"
#include "store/resumability.h"
#include "store/run_id.h"
#include "store/run_state.h"
#include "tasks/run_catalog.h"
#include "tasks/verified_run.h"
#include "views/resume_texts.h"

namespace pi_fusion::cli {
namespace {

using nlohmann::json;

std::string WithLineEnd(std::string text) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

// A text under its header line.
std::string Section(const std::string& header, const std::string& text) {
  return "=== " + header + " ===\n" + WithLineEnd(text);
}

std::string CandidateSections(const RunShow& run) {
  std::string out;
  for (const ShownCandidate& c : run.candidates) {
    out += "\n" + Section("Candidate " + std::to_string(c.slot) + ": " + c.model, c.answer);
  }
  return out;
}

// "Fusion reason-… (reason) failed; no answer was committed."
std::string StateSentence(const RunShow& run) {
  const std::string who = "Fusion " + run.run_id + " (" + run.workflow + ")";
  constexpr char kNoAnswer[] = "; no answer was committed.";
  if (run.state == "failed") return who + " failed" + kNoAnswer;
  if (run.state == "cancelled") {
    return who + " was cancelled" + (run.cancelled_by.empty() ? "" : " by " + run.cancelled_by) +
           kNoAnswer;
  }
  if (run.state == tasks::kInterruptedState) {
    return who + " was interrupted: its Pi ended before the run did" + kNoAnswer;
  }
  return who + " is still running (" + run.state + "); no answer yet.";
}

std::string CandidatesSentence(const RunShow& run, bool with_candidates) {
  if (run.candidates.empty()) return "No candidate answer verified.";
  std::string list;
  for (const ShownCandidate& c : run.candidates) {
    list += (list.empty() ? "" : ", ") + std::to_string(c.slot) + " (" + c.model + ")";
  }
  return "Verified candidate answers: " + list + "." +
         (with_candidates ? "" : " --candidates prints them.");
}

// What a run without an answer has: its state, failure, verified candidates and how it goes on.
std::string NoAnswerText(const RunShow& run, bool with_candidates) {
  std::string out = StateSentence(run) + "\n";
  if (run.failure) {
    out += NeutralizeControls("Failure: " + run.failure->code + ": " + run.failure->message,
                              TextShape::kSingleLine) +
           "\n";
  }
  out += CandidatesSentence(run, with_candidates) + "\n";
  if (run.resume) out += views::PersonResumeText(*run.resume) + "\n";
  if (!run.resumed_as.empty()) {
    out += "It was resumed as " + run.resumed_as + ", which completed: pi-fusion show " +
           std::string(store::ShortRunId(run.resumed_as)) + " prints its answer.\n";
  }
  return with_candidates ? out + CandidateSections(run) : out;
}

}  // namespace

RunShow ReadRunShow(FileSystem& fs, const std::string& run_dir) {
  tasks::RunListing run =
      tasks::ReadRunState(fs, run_dir, run_dir.substr(run_dir.find_last_of('/') + 1));
  RunShow show;
  show.run_id = run.run_id;
  show.state = run.State();
  if (run.manifest) show.workflow = run.manifest->workflow;
  tasks::VerifiedAnswers answers = tasks::ReadVerifiedAnswers(fs, run_dir);
  show.problems = std::move(answers.problems);
  if (!run.manifest || !show.problems.empty()) return show;
  const store::Manifest& manifest = *run.manifest;
  if (manifest.state != store::RunState::kCompleted) {
    run.resumed_as = store::CompletedResumeOf(fs, run_dir, run.run_id).value_or("");
  }
  show.answer = std::move(answers.merged);
  show.failure = manifest.error;
  show.cancelled_by = run.CancelCause();
  show.resume = run.Resume();
  show.resumed_as = run.resumed_as;
  show.candidates = std::move(answers.candidates);
  return show;
}

std::string ShowText(const RunShow& run, bool with_candidates) {
  if (!run.answer) return NoAnswerText(run, with_candidates);
  if (!with_candidates) return WithLineEnd(*run.answer);
  return Section("Merged answer of " + run.run_id, *run.answer) + CandidateSections(run);
}

std::string UnverifiedText(const RunShow& run) {
  // A directory named by path may have any name: it stays on this one line.
  const std::string id = NeutralizeControls(run.run_id, TextShape::kSingleLine);
  std::string out = "error: " + id +
                    " does not verify, so nothing of it is shown (pi-fusion verify " + id +
                    " checks it again):\n";
  for (const std::string& problem : run.problems) {
    out += "  " + NeutralizeControls(problem, TextShape::kSingleLine) + "\n";
  }
  return out;
}

json ShowJson(const RunShow& run, bool with_candidates) {
  json slots = json::array();
  json candidates = json::array();
  for (const ShownCandidate& c : run.candidates) {
    slots.push_back(c.slot);
    candidates.push_back({{"slot", c.slot}, {"model", c.model}, {"answer", c.answer}});
  }
  json out = {{"run_id", run.run_id},
              {"workflow", run.workflow.empty() ? json(nullptr) : json(run.workflow)},
              {"state", run.state},
              {"verified", run.problems.empty()},
              {"problems", run.problems},
              {"answer", run.answer ? json(*run.answer) : json(nullptr)},
              {"failure", run.failure ? store::RunErrorToJson(*run.failure) : json(nullptr)},
              {"verified_candidates", slots},
              {"resumable", run.resume ? tasks::ResumeHintJson(*run.resume) : json(nullptr)},
              {"resumed_as", run.resumed_as.empty() ? json(nullptr) : json(run.resumed_as)}};
  if (with_candidates) out["candidates"] = std::move(candidates);
  return out;
}

int ShowExitCode(const RunShow& run) {
  if (!run.problems.empty()) return kShowUnverified;
  return run.answer ? kShowAnswered : kShowNoAnswer;
}

}  // namespace pi_fusion::cli
