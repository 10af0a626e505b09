#include "views/run_view.h"

#include <map>
#include <utility>

#include "core/error_codes.h"
#include "core/role.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "run/judgment_text.h"
#include "run/source_failures.h"
#include "schema/tool_catalog.h"
#include "store/failure_view.h"
#include "store/manifest.h"
#include "store/run_id.h"
#include "tasks/resume_hint.h"
#include "views/provider_error.h"
#include "views/report_texts.h"
#include "views/resume_texts.h"

namespace pi_fusion::views {
namespace {

using nlohmann::json;

json SlotView(std::string_view name, tasks::SlotState state, const std::string& model = "") {
  json slot = {{"name", name}, {"state", tasks::SlotStateName(state)}};
  if (!model.empty()) slot["model"] = model;
  return slot;
}

json SlotsOf(const tasks::ProgressSnapshot& p, const json& models) {
  json slots = json::array();
  const json candidates = models.is_object() ? models.value("candidates", json::array()) : json();
  for (int i = 0; i < 3; ++i) {
    std::string model = candidates.is_array() && candidates.size() == 3 && candidates[i].is_string()
                            ? candidates[i].get<std::string>()
                            : "";
    json slot = SlotView(SlotLabel(kAllSlots[i]), p.candidates[i], model);
    // Started in a pooled process kept ready between runs (policy.keep_warm_seconds).
    if (p.candidate_life[i].pooled) slot["note"] = "warm";
    slots.push_back(std::move(slot));
  }
  slots.push_back(
      SlotView(SlotLabel(Slot::kEvaluator), p.evaluator, StringAt(models, "evaluator")));
  slots.push_back(SlotView(SlotLabel(Slot::kMerger), p.merger, StringAt(models, "merger")));
  return slots;
}

// Per-slot states from a failure view's attempt rows (the latest attempt of each slot wins).
tasks::ProgressSnapshot ProgressFromFailure(const json& failure, bool cancelled) {
  tasks::ProgressSnapshot p;
  p.stage = cancelled ? tasks::Stage::kCancelled : tasks::Stage::kFailed;
  auto state_of = [](const std::string& name) {
    if (name == "completed") return tasks::SlotState::kDone;
    if (name == "failed") return tasks::SlotState::kFailed;
    return tasks::SlotState::kCancelled;  // cancelled, or running when the run ended
  };
  std::map<std::pair<pi_fusion::Stage, int>, int> latest;  // (stage, slot) -> attempt
  const json rows = failure.is_object() ? failure.value("attempts", json::array()) : json::array();
  for (const json& row : rows) {
    if (!row.is_object()) continue;
    const std::optional<pi_fusion::Stage> stage = ParseStage(StringAt(row, "stage"));
    if (!stage) continue;
    const int slot = row.value("slot", json()).is_number_integer() ? row["slot"].get<int>() : 0;
    const int attempt = row.value("attempt", 0);
    int& seen = latest[{*stage, slot}];
    if (attempt < seen) continue;
    seen = attempt;
    const tasks::SlotState state = state_of(StringAt(row, "state"));
    if (*stage == pi_fusion::Stage::kCandidate && slot >= 1 && slot <= 3)
      p.candidates[slot - 1] = state;
    // The order check runs on the evaluator's route after the evaluation: its latest attempt is
    // the evaluator's state then.
    if (*stage == pi_fusion::Stage::kEvaluation || *stage == pi_fusion::Stage::kOrderCheck) {
      p.evaluator = state;
    }
    if (*stage == pi_fusion::Stage::kMerge) p.merger = state;
  }
  for (tasks::SlotState& s : p.candidates) {
    if (s == tasks::SlotState::kPending) s = tasks::SlotState::kSkipped;
  }
  if (p.evaluator == tasks::SlotState::kPending) p.evaluator = tasks::SlotState::kSkipped;
  if (p.merger == tasks::SlotState::kPending) p.merger = tasks::SlotState::kSkipped;
  return p;
}

// The route ("provider/model") of the child where a run failed, from `models` as SlotsOf reads
// them; "" when the failure names no child or the models are unknown.
std::string FailedRoute(const json& failure, const json& models) {
  const std::optional<pi_fusion::Stage> stage = ParseStage(StringAt(failure, "stage"));
  if (!stage || !models.is_object()) return "";
  // The agreement check and the order check run on the evaluator's route.
  if (*stage == pi_fusion::Stage::kEvaluation || *stage == pi_fusion::Stage::kAgreement ||
      *stage == pi_fusion::Stage::kOrderCheck) {
    return StringAt(models, "evaluator");
  }
  if (*stage == pi_fusion::Stage::kMerge) return StringAt(models, "merger");
  const json slot = failure.value("slot", json());
  const json candidates = models.value("candidates", json());
  if (!slot.is_number_integer() || !candidates.is_array()) return "";
  const int n = slot.get<int>();
  if (n < 1 || n > static_cast<int>(candidates.size()) || !candidates[n - 1].is_string()) return "";
  return candidates[n - 1].get<std::string>();
}

// The failure as the block's error line: "<code>: <message>", with a provider's reply said as a
// sentence (provider_error.h) rather than its JSON, which stays in error.json.
std::string ErrorLine(const json& failure, const json& models) {
  const std::string code = StringAt(failure, "code");
  const std::string message = StringAt(failure, "message");
  if (const std::optional<std::string> sentence =
          ProviderErrorSentence(message, FailedRoute(failure, models))) {
    return code + ": " + *sentence + " The provider's reply is kept in error.json.";
  }
  return code + ": " + message;
}

std::string WhereItStopped(const json& failure) {
  const std::string stage = StringAt(failure, "stage");
  if (stage.empty()) return "";
  std::string where = stage;
  const json slot = failure.value("slot", json());
  if (slot.is_number_integer()) where += " " + std::to_string(slot.get<int>());
  return where;
}

}  // namespace

json BaseView(const RunFacts& facts, std::string_view state, const std::string& status) {
  json view = {{"kind", "run"},
               {"title", tasks::TaskLabel(facts.workflow)},
               {"state", state},
               {"status", status}};
  if (!facts.question.empty()) view["question"] = ShortQuestion(facts.question);
  if (!facts.artifact_dir.empty()) view["artifacts"] = {{"dir", facts.artifact_dir}};
  return view;
}

json CompletedSlots(const json& models, const json& degraded, const json& adaptive) {
  tasks::ProgressSnapshot done;
  done.candidates = {tasks::SlotState::kDone, tasks::SlotState::kDone, tasks::SlotState::kDone};
  // The candidate a degraded run left out is shown as not done: failed, or cut (cancelled).
  if (degraded.is_object() && degraded.value("slot", 0) >= 1 && degraded.value("slot", 0) <= 3) {
    done.candidates[degraded.value("slot", 0) - 1] =
        degraded.value("reason", std::string()) == "failed" ? tasks::SlotState::kFailed
                                                            : tasks::SlotState::kCancelled;
  }
  if (adaptive.is_object() && adaptive.value("agree", false)) {
    done.candidates[2] = tasks::SlotState::kSkipped;
  }
  done.evaluator = done.merger = tasks::SlotState::kDone;
  return SlotsOf(done, models);
}

json CompletedNotes(const json& details) {
  json notes = json::array();
  if (const std::string degraded = run::DegradedSentence(details.value("degraded", json()));
      !degraded.empty()) {
    notes.push_back(degraded);
  }
  if (const std::string adaptive = run::AdaptiveSentence(details.value("adaptive", json()));
      !adaptive.empty()) {
    notes.push_back(adaptive);
  }
  if (const std::string shared = SharedModelNote(details.value("models", json()));
      !shared.empty()) {
    notes.push_back(shared);
  }
  for (const std::string& line : run::SourceWarningLines(details)) {
    notes.push_back(line);
  }
  // The panel's agreement and the citation check (docs/citations.md); ctrl+o lists the broken.
  if (std::string line = run::AgreementLine(details.value("agreement", json())); !line.empty()) {
    notes.push_back(std::move(line));
  }
  // The order check (docs/workflow.md, "Order check"): its conflicts whose favoured position
  // changed with the candidates' labels.
  if (std::string line = run::OrderCheckLine(details.value("order_check", json())); !line.empty()) {
    notes.push_back(std::move(line));
  }
  // The claims an evaluator with tools checked (policy.evaluator_tools); ctrl+o lists them.
  if (std::string line = run::CheckedClaimsLine(details.value("checked_claims", json()));
      !line.empty()) {
    notes.push_back(std::move(line));
  }
  if (std::string line = run::CitationsLine(details.value("citations", json())); !line.empty()) {
    notes.push_back(std::move(line));
  }
  return notes;
}

json RunningRunView(const RunFacts& facts, const tasks::ProgressSnapshot& progress,
                    int64_t now_ms) {
  json view = BaseView(
      facts, progress.stage == tasks::Stage::kPreflight ? "starting" : "running",
      tasks::StageSummary(progress) + " · " + tasks::FormatElapsed(progress.ElapsedMs(now_ms)));
  view["slots"] = SlotsOf(progress, json());
  view["notes"] = json::array({kActiveRunHint});
  for (const std::string& warning : progress.warnings) view["notes"].push_back(warning);
  return view;
}

json CompletedRunView(const RunFacts& facts, const store::VerifiedResult& verified) {
  std::string status = "completed";
  if (facts.progress && facts.progress->ended_ms != 0) {
    status += " in " + tasks::FormatElapsed(facts.progress->ElapsedMs(facts.progress->ended_ms));
  }
  const json& details = verified.details;
  if (const std::string sources = run::SourceWarningStatus(details); !sources.empty())
    status += " · " + sources;
  const std::string degraded = run::DegradedSentence(details.value("degraded", json()));
  if (!degraded.empty()) status += " · degraded";
  if (const std::string adaptive = run::AdaptiveStatus(details.value("adaptive", json()));
      !adaptive.empty()) {
    status += " · " + adaptive;
  }
  json view = BaseView(facts, "completed", status);
  view["slots"] = CompletedSlots(details.value("models", json()), details.value("degraded", json()),
                                 details.value("adaptive", json()));
  // Requests as the children counted them; a result from before they were counted shows none.
  const std::string usage =
      RequestsAndUsageText(details.value("model_requests", json()), details.value("usage", json()),
                           details.value("estimate", json()));
  if (!usage.empty()) view["usage"] = usage;
  if (json notes = CompletedNotes(details); !notes.empty()) view["notes"] = std::move(notes);
  view["report"] = ReportHintText(facts.run_id);
  view["answer"] =
      AnswerView(verified.merged, Grouped(verified.merged_ref.byte_length) + " bytes, verified");
  return view;
}

json FailedRunView(const RunFacts& facts, const json& failure_view, bool cancelled,
                   tasks::CancelSource cancelled_by, int64_t now_ms) {
  const json failure = failure_view.is_object() ? failure_view.value("failure", json()) : json();
  const std::string where = WhereItStopped(failure);
  std::string status = cancelled ? "cancelled" : "failed";
  if (!cancelled && !where.empty()) status += " at " + where;
  if (facts.progress) status += " after " + tasks::FormatElapsed(facts.progress->ElapsedMs(now_ms));
  json view = BaseView(facts, cancelled ? "cancelled" : "failed", status);
  const bool have_rows = failure_view.is_object() && failure_view.contains("attempts");
  // The routes, where the caller read them from the manifest: the failing slot's row names its
  // model.
  const json models = failure_view.is_object() ? failure_view.value("models", json()) : json();
  view["slots"] = SlotsOf(
      have_rows || !facts.progress ? ProgressFromFailure(failure_view, cancelled) : *facts.progress,
      models);
  const std::string message = StringAt(failure, "message");
  if (!cancelled && !StringAt(failure, "code").empty()) view["error"] = ErrorLine(failure, models);
  json notes = json::array();
  const std::string who = tasks::CancelSourceText(cancelled_by);
  if (cancelled) {
    notes.push_back(who.empty() ? "Cancelled." : "Cancelled by " + who + ".");
    if (cancelled_by == tasks::CancelSource::kQuit ||
        cancelled_by == tasks::CancelSource::kReload) {
      notes.push_back("Pi cancels active runs when it quits or reloads.");
    }
  }
  if (StringAt(failure_view, "summary_status") == "unavailable") {
    notes.push_back("The run's failure summary is unavailable: " + message);
  }
  // How it can go on, last (resume_hint.h): the view's data carries it when the run can be resumed.
  if (failure_view.is_object()) {
    if (const std::optional<tasks::ResumeHint> resume =
            tasks::ResumeHintFromJson(facts.run_id, failure_view.value("resumable", json()))) {
      notes.push_back(PersonResumeText(*resume));
    }
  }
  if (!notes.empty()) view["notes"] = notes;
  view["usage"] = failure_view.is_object()
                      ? RequestsAndUsageText(failure_view.value("model_requests", json()),
                                             failure_view.value("usage_so_far", json()))
                      : "";
  if (view["usage"] == "") view.erase("usage");
  return view;
}

namespace {

// The run's routes as SlotsOf reads them: {candidates: ["provider/model" ×3], evaluator, merger}.
json SlotModels(const store::RunModels& models) {
  json candidates = json::array();
  for (const store::ModelSelection& m : models.candidates) candidates.push_back(m.QualifiedId());
  return {{"candidates", candidates},
          {"evaluator", models.evaluator.QualifiedId()},
          {"merger", models.merger.QualifiedId()}};
}

// A resumed run's block says so even collapsed: "completed in 0:21 · resumed from 1a2b3c4d".
// A run on a named panel names it the same way: "completed in 0:21 · panel fast".
json WithResumedFrom(json view, const tasks::TaskInfo& task) {
  if (!view.contains("status") || !view["status"].is_string()) return view;
  if (!task.resumed_from.empty()) {
    view["status"] = view["status"].get<std::string>() + " · resumed from " +
                     std::string(store::ShortRunId(task.resumed_from));
  }
  if (!task.panel.empty())
    view["status"] = view["status"].get<std::string>() + " · panel " + task.panel;
  return view;
}

json EndedRunView(FileSystem& fs, const tasks::TaskInfo& task, int64_t now_ms) {
  RunFacts facts{task.id, task.workflow, task.question, task.artifact_dir, task.progress};
  if (task.state == tasks::TaskState::kCompleted) {
    Result<store::VerifiedResult> verified =
        store::VerifyCompletedRun(fs, task.artifact_dir, task.id);
    if (verified.ok()) return CompletedRunView(facts, *verified);
    return FailedRunView(
        facts,
        {{"failure",
          {{"code", verified.status().code()}, {"message", verified.status().message()}}}},
        false, tasks::CancelSource::kUnknown, now_ms);
  }
  const bool cancelled = task.state == tasks::TaskState::kKilled;
  Result<json> failure = store::ReadFailureView(fs, task.artifact_dir);
  json view =
      failure.ok()
          ? *failure
          : json{{"summary_status", "unavailable"},
                 {"failure", {{"code", kArtifactError}, {"message", failure.status().message()}}}};
  if (Result<store::Manifest> manifest = store::ReadManifest(fs, task.artifact_dir);
      manifest.ok()) {
    if (const std::optional<tasks::ResumeHint> resume = tasks::ResumeHintOf(*manifest)) {
      view["resumable"] = tasks::ResumeHintJson(*resume);
    }
    view["models"] = SlotModels(manifest->models);
  }
  return FailedRunView(facts, view, cancelled, task.cancelled_by, now_ms);
}

}  // namespace

json TerminalRunView(FileSystem& fs, const tasks::TaskInfo& task, int64_t now_ms) {
  return WithResumedFrom(EndedRunView(fs, task, now_ms), task);
}

json CallView(std::string_view tool, const json& args) {
  const bool fusion = tool.substr(0, 7) == "fusion_";
  json view = {{"title", fusion ? tasks::TaskLabel(tool.substr(7)) : std::string(tool)}};
  const schema::ToolSpec* spec = schema::FindTool(tool);
  const std::string question = spec ? schema::HeadlineOf(*spec, args) : "";
  if (!question.empty()) view["question"] = ShortQuestion(question);
  return view;
}

}  // namespace pi_fusion::views
