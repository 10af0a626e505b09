#include "views/result_answer.h"

#include <cstdio>

#include "core/error_codes.h"
#include "core/name_table.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "run/judgment_text.h"
#include "run/source_failures.h"
#include "run/tool_refusals.h"
#include "store/constants.h"
#include "store/failure_view.h"
#include "store/resumability.h"
#include "store/run_id.h"
#include "store/usage_claim.h"
#include "store/verify.h"
#include "tasks/continue_choice.h"
#include "tasks/resume_hint.h"
#include "views/lifecycle_texts.h"
#include "views/resume_texts.h"
#include "views/view_parts.h"

namespace pi_fusion::views {
namespace {

using nlohmann::json;

json BaseDetails(const tasks::TaskInfo& task, std::string_view state, std::string_view delivery) {
  return {{"schema_version", kResultViewSchema},
          {"task_id", task.id},
          {"state", state},
          {"delivery", delivery},
          {"workflow", task.workflow},
          {"artifact_dir", task.artifact_dir}};
}

enum class Attachment { kNow, kAlready, kUnrecorded };
// details.usage_attached.
constexpr NameTable<Attachment, 3> kAttachmentNames = {
    {Attachment::kNow, Attachment::kAlready, Attachment::kUnrecorded},
    {"now", "already", "unrecorded"}};
// details.delivery of a completed run.
constexpr NameTable<Delivery, 2> kDeliveryNames = {{Delivery::kInline, Delivery::kArtifact},
                                                   {"inline", "artifact"}};

// "\nBefore the run it was estimated $0.0011 expected (…), $0.2447 worst case." for a
// result that kept its estimate; "" otherwise.
std::string EstimateLine(const json& estimate) {
  const std::string text = EstimateText(estimate);
  return text.empty() ? "" : "\nBefore the run it was " + text + ".";
}

std::string UsageLine(const store::Usage& usage, const json& model_requests, Attachment attachment,
                      const std::string& why_unrecorded) {
  char cost[32];
  std::snprintf(cost, sizeof(cost), "$%.4f", usage.cost.total);
  return "Usage: " + RequestsPrefix(model_requests) + std::to_string(usage.input) + " input, " +
         std::to_string(usage.output) + " output, " + std::to_string(usage.cache_read) +
         " cache read, " + std::to_string(usage.cache_write) + " cache write tokens, " + cost +
         " (" +
         (attachment == Attachment::kNow ? "attached to this session now"
          : attachment == Attachment::kAlready
              ? "already attached"
              : "not attached: it could not be recorded (" + why_unrecorded + ")") +
         ")";
}

// details.candidates: each verified candidate answer of `m` (store::VerifiedCandidateSlots), its
// bytes checked against its ref now: {slot, letter (null before the map was drawn), model, path,
// byte_length, sha256}. What /fusion-continue puts into a conversation, for a program to read.
json VerifiedCandidateRows(FileSystem& fs, const std::string& run_dir, const store::Manifest& m) {
  json rows = json::array();
  for (const int slot : store::VerifiedCandidateSlots(m)) {
    const store::ArtifactRef& ref = m.artifacts.at(store::CandidateResponseName(slot));
    if (!store::VerifyArtifact(fs, run_dir, ref).ok()) continue;
    const std::string letter = tasks::LetterOfSlot(m.anonymous_map, slot);
    rows.push_back({{"slot", slot},
                    {"letter", letter.empty() ? json(nullptr) : json(letter)},
                    {"model", m.models.candidates[slot - 1].QualifiedId()},
                    {"path", run_dir + "/" + ref.path},
                    {"byte_length", ref.byte_length},
                    {"sha256", ref.sha256}});
  }
  return rows;
}

Result<ResultAnswer> CompletedAnswer(FileSystem& fs, const Clock& clock,
                                     const tasks::TaskInfo& task, Delivery delivery) {
  Result<store::VerifiedResult> verified =
      store::VerifyCompletedRun(fs, task.artifact_dir, task.id);
  if (!verified.ok()) return verified.status();
  const bool inline_delivery = delivery == Delivery::kInline;
  if (inline_delivery && verified->merged.size() > kInlineAnswerLimit) {
    return Status::Error(kInvalidArguments, "the answer of " + task.id + " is " +
                                                std::to_string(verified->merged.size()) +
                                                " bytes, over the " + Grouped(kInlineAnswerLimit) +
                                                "-byte inline limit; nothing was truncated. "
                                                "Call bg_result({taskId: \"" +
                                                task.id + "\", delivery: \"artifact\"}) and read " +
                                                verified->merged_path);
  }
  // A verified answer is never withheld because the claim cannot be written (a read-only run
  // directory): the usage is then not attached, and the text says why.
  Result<bool> claimed =
      store::ClaimUsageOnce(fs, clock, task.artifact_dir, task.id, verified->usage);
  const Attachment attachment = !claimed.ok() ? Attachment::kUnrecorded
                                : *claimed    ? Attachment::kNow
                                              : Attachment::kAlready;
  const std::string why = claimed.ok() ? "" : claimed.status().message();
  ResultAnswer view;
  // A candidate that tried to read past the walls is said here, not only in the details.
  const std::string refusals = run::RefusalsText(verified->details.value("tool_refusals", json()));
  const std::string shared = SharedModelNote(verified->details.value("models", json()));
  // research: a declared source no candidate could fetch is said before the answer.
  std::string failed_sources;
  for (const std::string& line : run::SourceWarningLines(verified->details)) {
    failed_sources += "\n" + line;
  }
  // A run that answered from two candidates says so first, right after the header.
  const std::string degraded = run::DegradedSentence(verified->details.value("degraded", json()));
  // An adaptive run says how many candidates it asked, on the next line.
  const std::string adaptive = run::AdaptiveSentence(verified->details.value("adaptive", json()));
  // The panel's agreement on the header's next line; the citations that do not hold, each on its
  // own line, so the agent can correct what it repeats of the answer.
  std::string agreement = run::AgreementLine(verified->details.value("agreement", json()));
  // The order check's conflicts whose favoured position changed with the labels.
  if (std::string order = run::OrderCheckLine(verified->details.value("order_check", json()));
      !order.empty()) {
    agreement += (agreement.empty() ? "" : "\n") + order;
  }
  // The claims an evaluator with tools checked, and each one's verdict and evidence.
  if (std::string claims =
          run::CheckedClaimsLine(verified->details.value("checked_claims", json()));
      !claims.empty()) {
    agreement += (agreement.empty() ? "" : "\n") + claims;
    for (const std::string& line :
         run::CheckedClaimLines(verified->details.value("checked_claims", json()))) {
      agreement += "\n" + line;
    }
  }
  std::string citations = run::CitationsLine(verified->details.value("citations", json()));
  for (const std::string& line :
       run::BrokenCitationLines(verified->details.value("citations", json()))) {
    citations += "\n" + line;
  }
  const std::string head =
      "Fusion " + task.id + " completed (" + task.workflow + ")." +
      (degraded.empty() ? "" : "\n" + degraded) + (adaptive.empty() ? "" : "\n" + adaptive) +
      (agreement.empty() ? "" : "\n" + agreement) +
      "\nAnswer: " + std::to_string(verified->merged_ref.byte_length) + " bytes, " +
      verified->merged_ref.sha256 + " (verified).\nArtifacts: " + task.artifact_dir + "\n" +
      UsageLine(verified->usage, verified->details.value("model_requests", json()), attachment,
                why) +
      EstimateLine(verified->details.value("estimate", json())) +
      (refusals.empty() ? "" : "\n" + refusals) + (shared.empty() ? "" : "\n" + shared) +
      failed_sources + (citations.empty() ? "" : "\n" + citations) + "\n\n";
  view.text = head + (inline_delivery ? verified->merged : "Answer file: " + verified->merged_path);
  view.details = BaseDetails(task, "completed", kDeliveryNames.Name(delivery));
  view.details["answer"] = {{"present", true},
                            {"path", verified->merged_path},
                            {"byte_length", verified->merged_ref.byte_length},
                            {"sha256", verified->merged_ref.sha256}};
  // Where the answer starts in the text (bytes), so a view takes it from there.
  if (inline_delivery) view.details["answer"]["text_offset"] = head.size();
  view.details["usage"] = store::UsageToJson(verified->usage);
  view.details["usage_attached"] = kAttachmentNames.Name(attachment);
  view.details["result"] = verified->details;
  view.details["candidates"] = VerifiedCandidateRows(fs, task.artifact_dir, verified->manifest);
  if (attachment == Attachment::kNow) view.attach_usage = store::UsageToJson(verified->usage);
  return view;
}

ResultAnswer FailedAnswer(FileSystem& fs, const tasks::TaskInfo& task) {
  Result<json> failure = store::ReadFailureView(fs, task.artifact_dir);
  ResultAnswer view;
  view.details = BaseDetails(task, tasks::TaskStateName(task.state), "none");
  view.details["answer"] = {{"present", false}, {"reason", "run_did_not_commit"}};
  std::string summary = task.terminal_text;
  // The notice's resume sentence is said once, last, in the agent's words (bg_result's reader).
  if (const size_t at = summary.find("\nResumable: "); at != std::string::npos) summary.erase(at);
  const Result<store::Manifest> manifest = store::ReadManifest(fs, task.artifact_dir);
  const std::optional<tasks::ResumeHint> resume =
      manifest.ok() ? tasks::ResumeHintOf(*manifest) : std::optional<tasks::ResumeHint>();
  if (failure.ok()) {
    // A run from an earlier Pi process has only its error as text: say what its children did and
    // what it used, as the notice of a run of this process does.
    if (summary.find("\nChildren: ") == std::string::npos) {
      for (const std::string& line : {ChildrenLine(failure->value("progress", json())),
                                      UsageSoFarLine(failure->value("usage_so_far", json()),
                                                     failure->value("model_requests", json()))}) {
        if (!line.empty()) summary += "\n" + line;
      }
    }
    for (const auto& [key, value] : failure->items()) view.details[key] = value;
    store::FitFailureView(view.details, store::kFailureViewMaxBytes);
    // Refused file-tool calls, counted from the audit logs the manifest binds (at most three
    // short rows, outside the fitted failure view).
    if (manifest.ok()) {
      const json refusals = run::ReadRunRefusals(fs, task.artifact_dir, *manifest);
      view.details["tool_refusals"] = refusals;
      if (const std::string text = run::RefusalsText(refusals); !text.empty()) {
        summary += "\n" + text;
      }
    }
  } else {
    view.details["summary_status"] = "unavailable";
    summary += (summary.empty() ? "" : "\n") + std::string("Failure summary unavailable: ") +
               failure.status().message();
  }
  // One word for the state: "cancelled", with who asked when the run recorded it (never the
  // contract's "killed", which stays in the details).
  const std::string ended =
      task.state == tasks::TaskState::kKilled
          ? "(" + task.workflow + ") " + tasks::CancelledText(task.cancelled_by)
          : std::string(tasks::TaskStateName(task.state)) + " (" + task.workflow + ")";
  view.text =
      "Fusion " + task.id + " " + ended + "; no answer was committed.\n" + summary +
      (summary.find("Artifacts:") == std::string::npos ? "\nArtifacts: " + task.artifact_dir : "");
  if (manifest.ok()) {
    view.details["candidates"] = VerifiedCandidateRows(fs, task.artifact_dir, *manifest);
  }
  if (resume) {
    view.details["resumable"] = tasks::ResumeHintJson(*resume);
    view.text += "\n" + AgentResumeText(*resume);
  }
  return view;
}

// A run of this Pi ends with a notification to it; a run another live Pi owns notifies only that
// Pi, so the text says whose run it is and how to read its answer once it ends.
ResultAnswer RunningAnswer(const tasks::TaskInfo& task) {
  ResultAnswer view;
  view.details = BaseDetails(task, "running", "none");
  if (task.owner_pid == 0) {
    view.text = "Fusion " + task.id + " is still running (" + task.workflow + ")" +
                (task.last_progress.empty() ? "" : ": " + task.last_progress) +
                ".\nArtifacts: " + task.artifact_dir +
                "\nWait for the terminal notification; do not poll.";
    return view;
  }
  view.details["owner"] = {{"pid", task.owner_pid}, {"session", task.owner_session}};
  view.text = "Fusion " + task.id + " (" + task.workflow + ") is " + task.last_progress +
              ".\nArtifacts: " + task.artifact_dir + "\n" + OwnedElsewhereText(task);
  return view;
}

}  // namespace

std::string OwnedElsewhereText(const tasks::TaskInfo& task) {
  return "That Pi owns the run: only it is notified when the run ends, and this Pi will not "
         "be. Once it has ended, call bg_result({taskId:\"" +
         task.id + "\"}) again for its verified answer (the answer file is " + task.artifact_dir +
         "/merged.md; `pi-fusion runs` lists the run's state). Do not poll.";
}

Result<ResultAnswer> BuildResultAnswer(FileSystem& fs, const Clock& clock,
                                       const tasks::TaskInfo& task, Delivery delivery) {
  switch (task.state) {
    case tasks::TaskState::kRunning:
      return RunningAnswer(task);
    case tasks::TaskState::kCompleted:
      return CompletedAnswer(fs, clock, task, delivery);
    case tasks::TaskState::kFailed:
    case tasks::TaskState::kKilled:
      return FailedAnswer(fs, task);
  }
  return Status::Error(kOrchestrationFailed, "unknown task state");
}

}  // namespace pi_fusion::views
