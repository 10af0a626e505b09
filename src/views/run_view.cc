#include "views/run_view.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <vector>

#include "config/shared_model.h"
#include "core/error_codes.h"
#include "core/json_text.h"
#include "core/number_text.h"
#include "core/utf8.h"
#include "pi_fusion/sha256.h"
#include "run/degraded_text.h"
#include "run/source_failures.h"
#include "run/tool_call_list.h"
#include "schema/tool_catalog.h"
#include "store/artifact_ref.h"
#include "store/failure_view.h"
#include "store/role_usage.h"
#include "store/run_id.h"
#include "tasks/resume_hint.h"
#include "views/resume_texts.h"
#include "workflow/validation_render.h"
#include "workflow/validation_report.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::views {
namespace {

using nlohmann::json;

std::string Title(std::string_view workflow) { return "fusion " + std::string(workflow); }

json Slot(const char* name, tasks::SlotState state, const std::string& model = "") {
  json slot = {{"name", name}, {"state", tasks::SlotStateName(state)}};
  if (!model.empty()) slot["model"] = model;
  return slot;
}

constexpr const char* kSlotNames[] = {"Candidate 1", "Candidate 2", "Candidate 3"};

json SlotsOf(const tasks::ProgressSnapshot& p, const json& models) {
  json slots = json::array();
  const json candidates = models.is_object() ? models.value("candidates", json::array()) : json();
  for (int i = 0; i < 3; ++i) {
    std::string model = candidates.is_array() && candidates.size() == 3 && candidates[i].is_string()
                            ? candidates[i].get<std::string>()
                            : "";
    slots.push_back(Slot(kSlotNames[i], p.candidates[i], model));
  }
  slots.push_back(Slot("Evaluator", p.evaluator, StringAt(models, "evaluator")));
  slots.push_back(Slot("Merger", p.merger, StringAt(models, "merger")));
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
    if (*stage == pi_fusion::Stage::kEvaluation) p.evaluator = state;
    if (*stage == pi_fusion::Stage::kMerge) p.merger = state;
  }
  for (tasks::SlotState& s : p.candidates) {
    if (s == tasks::SlotState::kPending) s = tasks::SlotState::kSkipped;
  }
  if (p.evaluator == tasks::SlotState::kPending) p.evaluator = tasks::SlotState::kSkipped;
  if (p.merger == tasks::SlotState::kPending) p.merger = tasks::SlotState::kSkipped;
  return p;
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

std::string StringAt(const json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string Grouped(uint64_t n) { return GroupedDigits(n); }

json BaseView(const RunFacts& facts, std::string_view state, const std::string& status) {
  json view = {
      {"kind", "run"}, {"title", Title(facts.workflow)}, {"state", state}, {"status", status}};
  if (!facts.question.empty()) view["question"] = ShortQuestion(facts.question);
  if (!facts.artifact_dir.empty()) view["artifacts"] = {{"dir", facts.artifact_dir}};
  return view;
}

json CompletedSlots(const json& models, const json& degraded) {
  tasks::ProgressSnapshot done;
  done.candidates = {tasks::SlotState::kDone, tasks::SlotState::kDone, tasks::SlotState::kDone};
  // The candidate a degraded run left out is shown as not done: failed, or cut (cancelled).
  if (degraded.is_object() && degraded.value("slot", 0) >= 1 && degraded.value("slot", 0) <= 3) {
    done.candidates[degraded.value("slot", 0) - 1] =
        degraded.value("reason", std::string()) == "failed" ? tasks::SlotState::kFailed
                                                            : tasks::SlotState::kCancelled;
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
  if (const std::string shared = SharedModelNote(details.value("models", json()));
      !shared.empty()) {
    notes.push_back(shared);
  }
  for (const std::string& line : run::SourceWarningLines(details)) {
    notes.push_back(line);
  }
  return notes;
}

std::string SharedModelNote(const json& models) {
  const json candidates = models.is_object() ? models.value("candidates", json()) : json();
  if (!candidates.is_array() || candidates.size() != 3) return "";
  std::array<std::string, 3> ids;
  for (size_t i = 0; i < 3; ++i) {
    if (candidates[i].is_string()) ids[i] = candidates[i].get<std::string>();
  }
  const std::optional<config::SharedModel> shared = config::SharedCandidateModel(ids);
  return shared ? config::SharedModelText(*shared) : "";
}

std::string ShortQuestion(std::string_view description) {
  std::string out;
  size_t chars = 0;
  for (size_t i = 0; i < description.size();) {
    const size_t len = DecodeUtf8At(description, i).length;
    if (chars == kQuestionMaxChars) {
      while (!out.empty() && out.back() == ' ') out.pop_back();
      return out + "…";
    }
    const char ch = description[i];
    out.append(ch == '\n' || ch == '\r' || ch == '\t' ? " " : description.substr(i, len));
    i += len;
    ++chars;
  }
  return out;
}

std::string UsageText(const json& usage) {
  if (!usage.is_object() || !usage.contains("totalTokens")) return "";
  const uint64_t tokens = usage.value("totalTokens", uint64_t{0});
  double cost = 0;
  if (usage.contains("cost") && usage["cost"].is_object()) cost = usage["cost"].value("total", 0.0);
  char dollars[32];
  std::snprintf(dollars, sizeof(dollars), "$%.4f", cost);
  return Grouped(tokens) + " tokens · " + dollars;
}

std::string RequestsPrefix(const json& model_requests) {
  if (!model_requests.is_number_integer() || model_requests.get<int64_t>() < 0) return "";
  const uint64_t n = model_requests.get<uint64_t>();
  return Grouped(n) + (n == 1 ? " model request · " : " model requests · ");
}

std::string EstimateText(const json& estimate) {
  if (!estimate.is_object()) return "";
  const json expected = estimate.value("expected_usd", json());
  const json worst = estimate.value("worst_case_usd", json());
  if (!expected.is_number() || !worst.is_number()) return "";
  const std::string basis = StringAt(estimate, "expected_basis");
  const std::string why = basis == "earlier_runs" ? " (from earlier runs)"
                          : basis == "mixed"      ? " (partly from earlier runs)"
                                                  : " (a quarter of each output cap)";
  const auto dollars = [](double usd) {
    char text[48];
    std::snprintf(text, sizeof(text), "$%.4f", usd);  // as the usage lines print cost
    return std::string(text);
  };
  return "estimated " + dollars(expected.get<double>()) + " expected" + why + ", " +
         dollars(worst.get<double>()) + " worst case";
}

std::string RequestsAndUsageText(const json& model_requests, const json& usage,
                                 const json& estimate) {
  const std::string text = UsageText(usage);
  if (text.empty()) return "";
  const std::string estimated = EstimateText(estimate);
  return RequestsPrefix(model_requests) + text + (estimated.empty() ? "" : " · " + estimated);
}

std::vector<std::string> RoleUsageLines(const json& usage_by_role) {
  std::vector<std::string> lines;
  if (!usage_by_role.is_array()) return lines;
  for (const json& row : usage_by_role) {
    if (!row.is_object()) continue;
    const std::optional<Role> role = ParseRole(StringAt(row, "role"));
    const json slot = row.value("slot", json());
    if (!role || (*role == Role::kCandidate && !slot.is_number_integer())) continue;
    std::string name(RoleLabel(*role));
    if (*role == Role::kCandidate) name += " " + std::to_string(slot.get<int>());
    const std::string model = StringAt(row, "model");
    if (!model.empty()) name += " (" + model + ")";
    const json reused = row.value("reused_from", json());
    if (reused.is_string() && store::IsValidRunId(reused.get<std::string>())) {
      // Paid by the run it came from: this run spent nothing on it.
      lines.push_back(name + ": reused from " +
                      std::string(store::ShortRunId(reused.get<std::string>())));
      continue;
    }
    const std::string usage =
        RequestsAndUsageText(row.value("requests", json()), row.value("usage", json()));
    lines.push_back(name + ": " + (usage.empty() ? "no usage reported" : usage));
  }
  return lines;
}

json AnswerView(const std::string& markdown, const std::string& note) {
  std::string preview;
  size_t lines = 0;
  bool cut = false;
  for (size_t start = 0; start < markdown.size();) {
    size_t end = markdown.find('\n', start);
    end = end == std::string::npos ? markdown.size() : end + 1;
    if (lines == kPreviewMaxLines || preview.size() + (end - start) > kPreviewMaxBytes) {
      cut = true;
      break;
    }
    preview.append(markdown, start, end - start);
    ++lines;
    start = end;
  }
  if (preview.empty() && !markdown.empty()) {  // one line longer than the byte cap
    preview = TruncateUtf8(markdown, kPreviewMaxBytes);
    cut = true;
  }
  while (!preview.empty() && (preview.back() == '\n' || preview.back() == ' ')) preview.pop_back();
  if (cut) preview += "\n\n…";
  json view = {{"preview", preview}, {"markdown", markdown}};
  if (!note.empty()) view["note"] = note;
  return view;
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
  json view = BaseView(facts, "completed", status);
  view["slots"] =
      CompletedSlots(details.value("models", json()), details.value("degraded", json()));
  // Requests as the children counted them; a result from before they were counted shows none.
  const std::string usage =
      RequestsAndUsageText(details.value("model_requests", json()), details.value("usage", json()),
                           details.value("estimate", json()));
  if (!usage.empty()) view["usage"] = usage;
  if (json notes = CompletedNotes(details); !notes.empty()) view["notes"] = std::move(notes);
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
  view["slots"] = SlotsOf(
      have_rows || !facts.progress ? ProgressFromFailure(failure_view, cancelled) : *facts.progress,
      json());
  const std::string code = StringAt(failure, "code");
  const std::string message = StringAt(failure, "message");
  if (!cancelled && !code.empty()) view["error"] = code + ": " + message;
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

json TerminalRunView(FileSystem& fs, const tasks::TaskInfo& task, int64_t now_ms) {
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
  }
  return FailedRunView(facts, view, cancelled, task.cancelled_by, now_ms);
}

namespace {

// What a person reads of a candidate's verified answer: a validation reviewer's JSON report as a
// review (severity, location, summary of each finding), every other answer as it is. A report
// that cannot be read as one is shown as it is.
std::string CandidateMarkdown(const std::string& workflow_name, const std::string& answer) {
  const std::optional<Workflow> workflow = ParseWorkflow(workflow_name);
  if (!workflow || workflow::SpecOf(*workflow).shape != workflow::StageShape::kValidation) {
    return answer;
  }
  const workflow::ReportReading reading = workflow::ReadValidationReport(answer);
  return reading.ok() ? workflow::RenderReviewerReport(*reading.report) : answer;
}

}  // namespace

json ExpandRun(FileSystem& fs, const std::string& run_dir) {
  json artifacts = {{"dir", run_dir}};
  Result<store::Manifest> manifest = store::ReadManifest(fs, run_dir);
  if (!manifest.ok()) {
    artifacts["gone"] = true;
    artifacts["note"] = "(the artifacts are gone; the candidates cannot be shown)";
    return {{"artifacts", artifacts}};
  }
  json out = json::object();
  json candidates = json::array();
  const json& map = manifest->anonymous_map;
  bool missing = false;
  // The status row's names ("Candidate 2"), with the letter the evaluation uses for each.
  std::map<std::string, std::string> names;  // letter -> "Candidate 2 (A)"
  std::vector<std::pair<int, std::string>> by_slot;
  for (const char* id : {"A", "B", "C"}) {
    if (!map.is_object() || !map.contains(id) || !map[id].is_number_integer()) continue;
    const int slot = map[id].get<int>();
    if (slot < 1 || slot > 3) continue;
    names[id] = "Candidate " + std::to_string(slot) + " (" + id + ")";
    by_slot.emplace_back(slot, id);
  }
  std::sort(by_slot.begin(), by_slot.end());
  for (const auto& [slot, id] : by_slot) {
    const store::ModelSelection& model = manifest->models.candidates[slot - 1];
    json candidate = {
        {"id", id}, {"slot", slot}, {"name", names[id]}, {"model", model.QualifiedId()}};
    const store::AttemptRecord* latest = nullptr;
    for (const store::AttemptRecord& a : manifest->attempts) {
      if (a.key.stage == pi_fusion::Stage::kCandidate && a.key.slot == slot &&
          a.state == store::AttemptState::kCompleted)
        latest = &a;
    }
    std::string name;
    if (latest != nullptr) {
      for (const std::string& artifact : latest->artifacts) {
        if (artifact.find(".response.") != std::string::npos &&
            artifact.find(".partial") == std::string::npos &&
            artifact.find(".oversized") == std::string::npos)
          name = artifact;
      }
    }
    auto ref = manifest->artifacts.find(name);
    Result<std::string> text = ref == manifest->artifacts.end()
                                   ? Result<std::string>(Status::Error(kArtifactError, "none"))
                                   : fs.ReadFile(run_dir + "/" + ref->second.path,
                                                 store::ArtifactReadCap(ref->second.path));
    if (!text.ok()) {
      candidate["note"] = "(its answer file is gone)";
      missing = true;
    } else if (Sha256Ref(*text) != ref->second.sha256) {
      candidate["note"] = "(its answer file changed after the run; not shown)";
    } else {
      candidate["markdown"] = CandidateMarkdown(manifest->workflow, *text);
    }
    // What it looked at (tool-using workflows): its verified journal and event log.
    if (latest != nullptr) {
      json tools =
          run::ReadAttemptToolCalls(fs, run_dir, *manifest, store::AttemptPrefix(latest->key));
      if (!tools.is_null()) candidate["tools"] = std::move(tools);
    }
    candidates.push_back(candidate);
  }
  if (!candidates.empty()) out["candidates"] = candidates;
  // The split of the run's usage by role, from the manifest's attempts (store/role_usage.h).
  const std::vector<std::string> roles =
      RoleUsageLines(store::UsageByRoleJson(store::UsageByRole(*manifest)));
  if (!roles.empty()) out["roles"] = roles;
  auto evaluation_ref = manifest->artifacts.find("evaluation.json");
  if (evaluation_ref != manifest->artifacts.end()) {
    Result<std::string> bytes = fs.ReadFile(run_dir + "/" + evaluation_ref->second.path,
                                            store::ArtifactReadCap(evaluation_ref->second.path));
    // A file with a key twice shows no evaluation rather than one of its two values.
    Result<json> parsed = bytes.ok() ? ParseUniqueKeyJson(*bytes, "evaluation.json", kArtifactError)
                                     : Result<json>(bytes.status());
    const json evaluation = parsed.ok() ? *parsed : json();
    if (evaluation.is_object()) {
      json agreements = json::array();
      for (const json& a : evaluation.value("agreements", json::array())) {
        if (a.is_string()) agreements.push_back(a);
      }
      json conflicts = json::array();
      for (const json& c : evaluation.value("conflicts", json::array())) {
        if (!c.is_object()) continue;
        json positions = json::array();
        for (const json& p : c.value("positions", json::array())) {
          const std::string letter = StringAt(p, "candidate_id");
          const auto name = names.find(letter);
          positions.push_back((name == names.end() ? letter : name->second) + ": " +
                              StringAt(p, "position"));
        }
        conflicts.push_back({{"topic", StringAt(c, "topic")},
                             {"positions", positions},
                             {"resolution", StringAt(c, "resolution")}});
      }
      if (!agreements.empty()) out["agreements"] = agreements;
      if (!conflicts.empty()) out["conflicts"] = conflicts;
    } else {
      missing = true;
    }
  }
  if (missing) {
    artifacts["gone"] = true;
    artifacts["note"] = "(some artifacts are gone)";
  }
  out["artifacts"] = artifacts;
  return out;
}

json CallView(std::string_view tool, const json& args) {
  const bool fusion = tool.substr(0, 7) == "fusion_";
  json view = {{"title", fusion ? Title(tool.substr(7)) : std::string(tool)}};
  const schema::ToolSpec* spec = schema::FindTool(tool);
  const std::string question = spec ? schema::HeadlineOf(*spec, args) : "";
  if (!question.empty()) view["question"] = ShortQuestion(question);
  return view;
}

}  // namespace pi_fusion::views
