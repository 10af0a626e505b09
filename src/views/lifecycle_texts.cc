#include "views/lifecycle_texts.h"

#include <cstdio>
#include <utility>

#include "config/route_admission.h"
#include "config/shared_model.h"
#include "run/cost_estimate.h"
#include "run/source_failures.h"
#include "schema/tool_catalog.h"
#include "store/run_id.h"
#include "views/host_texts.h"
#include "views/panel_texts.h"
#include "views/resume_texts.h"
#include "views/view_parts.h"
#include "workflow/child_wrapper.h"

namespace pi_fusion::views {

using nlohmann::json;

std::string RequestText(const schema::NormalizedRequest& request) {
  return schema::HeadlineOf(schema::FusionTool(request.workflow), request.request);
}

std::string PreflightUpdateText(std::string_view workflow) {
  return tasks::TaskLabel(workflow) + ": preflight (routes, budget, artifacts)";
}

std::string CommandStartedText(const LaunchReport& launch) {
  return "Started fusion reason (" + launch.run_id + ")… Artifacts: " + launch.artifact_dir +
         (launch.panel_text.empty() ? "" : "\n" + launch.panel_text) +
         (launch.warning_text.empty() ? "" : "\n" + launch.warning_text) +
         (launch.estimate_text.empty() ? "" : "\n" + launch.estimate_text);
}

namespace {

std::string PreflightLine(const run::PreparedRun& run) {
  std::string routes;
  for (size_t i = 0; i < 3; ++i) {
    routes += (i ? ", " : "") + run.models.routes[i].model.QualifiedId();
  }
  const size_t warnings = run.plan.warnings.size();
  return "Preflight: routes admitted (candidates " + routes + "; evaluator " +
         run.models.route(pi_fusion::Slot::kEvaluator).model.QualifiedId() + "; merger " +
         run.models.route(pi_fusion::Slot::kMerger).model.QualifiedId() + "); budget plan written" +
         (warnings ? " with " + std::to_string(warnings) + " warning(s)" : ", no warnings") + ".";
}

// A run under PI_FUSION_CHILD_WRAPPER says so before anything else happens.
std::string WrapperLine(const run::PreparedRun& run) {
  if (run.child_wrapper.empty()) return "";
  return "\nWarning: " + workflow::ChildWrapperNotice(run.child_wrapper) + ".";
}

}  // namespace

LaunchReport Receipt(const run::PreparedRun& run, const tasks::TaskInfo& task) {
  LaunchReport launch;
  launch.ok = true;
  launch.run_id = task.id;
  launch.artifact_dir = task.artifact_dir;
  launch.estimate_text = run::CostEstimateText(run);
  const std::optional<config::SharedModel> shared = config::SharedCandidateModel(
      {run.models.routes[0].model.QualifiedId(), run.models.routes[1].model.QualifiedId(),
       run.models.routes[2].model.QualifiedId()});
  if (shared) launch.warning_text = config::SharedModelText(*shared);
  const store::Manifest manifest = run.store->Snapshot();
  launch.panel_text = PanelLine(manifest.panel, manifest.models);
  launch.receipt_text = "Started " + task.label + " in the background (" + task.id +
                        ").\nArtifacts: " + task.artifact_dir + "\n" +
                        (launch.panel_text.empty() ? "" : launch.panel_text + "\n") +
                        PreflightLine(run) + WrapperLine(run) +
                        (shared ? "\n" + launch.warning_text : std::string()) + "\n" +
                        launch.estimate_text +
                        "\nWait for the terminal notification, then call bg_result({taskId:\"" +
                        task.id + "\"}). Do not poll.";
  launch.details = {{"schema_version", "pi-background-tasks.fusion-launch.v1"},
                    {"task",
                     {{"id", task.id},
                      {"label", task.label},
                      {"description", task.description},
                      {"notify_on_completion", true},
                      {"trigger_on_completion", task.source == "tool"},
                      {"stop_wait_ms", kKillWaitMs}}},
                    {"run_id", task.id},
                    {"workflow", task.workflow},
                    {"artifact_dir", task.artifact_dir}};
  launch.details["estimate"] = run::CostEstimateJson(run);
  if (shared) {
    launch.details["shared_model"] = {
        {"model", shared->model}, {"slots", shared->slots}, {"family", shared->family}};
  }
  return launch;
}

double UsageCostUsd(const json& usage) {
  if (!usage.is_object()) return 0;
  const json cost = usage.value("cost", json());
  const json total = cost.is_object() ? cost.value("total", json()) : json();
  return total.is_number() && total.get<double>() > 0 ? total.get<double>() : 0;
}

std::string FooterCostText(double usd) {
  char dollars[32];
  std::snprintf(dollars, sizeof(dollars), "$%.4f", usd);
  return std::string("fusion: ") + dollars;
}

namespace {

// The slots a preflight refusal names in its message ("Candidate 2 model … Candidate 3 …"):
// "2,3" (candidates by number, as a run's failure line counts them), "evaluator", "merger";
// "none" when it names none. The refusals are Fusion's own texts (route admission, the cost
// cap), which name a slot by its label, so the failure line never says slot=none beside one.
std::string NamedSlots(const std::string& message) {
  std::string slots;
  for (Slot slot : kAllSlots) {
    if (message.find(SlotLabel(slot)) == std::string::npos) continue;
    const size_t index = static_cast<size_t>(slot);
    slots += (slots.empty() ? "" : ",") +
             (index < 3 ? std::to_string(index + 1) : std::string(SlotId(slot)));
  }
  return slots.empty() ? "none" : slots;
}

}  // namespace

LaunchReport FailedLaunch(const run::PreflightFailure& failure) {
  LaunchReport launch;
  launch.error = failure.status;
  launch.artifact_dir = failure.artifact_dir;
  launch.receipt_text =
      "Fusion failed (stage=preflight, slot=" + NamedSlots(failure.status.message()) +
      ", attempt=none): " + failure.status.message() +
      (failure.artifact_dir.empty() ? "" : "\nArtifacts: " + failure.artifact_dir) +
      ErrorCodeLine(failure.status.code());
  launch.details = {
      {"error", {{"code", failure.status.code()}, {"message", failure.status.message()}}}};
  if (!failure.artifact_dir.empty()) launch.details["artifact_dir"] = failure.artifact_dir;
  return launch;
}

// "Children: candidates 1 of 3 failed, 2 of 3 cancelled; evaluation not started; …": candidate
// counts say "of N", so they never read as slot numbers.
std::string ChildrenLine(const json& progress) {
  if (!progress.is_object()) return "";
  constexpr const char* kStates[] = {"completed", "failed", "cancelled", "interrupted",
                                     "not_started"};
  std::string line;
  // failure-summary.json's progress keys (store/failure_summary.h); only candidates are counted.
  constexpr std::pair<const char*, bool> kStages[] = {
      {"candidates", true}, {"evaluation", false}, {"merge", false}};
  for (const auto& [stage, counted] : kStages) {
    const json counts = progress.value(stage, json());
    if (!counts.is_object()) return "";
    int64_t total = 0;
    for (const char* state : kStates) {
      const json n = counts.value(state, json());
      if (n.is_number_integer() && n.get<int64_t>() > 0) total += n.get<int64_t>();
    }
    std::string facts;
    for (const char* state : kStates) {
      const json n = counts.value(state, json());
      if (!n.is_number_integer() || n.get<int64_t>() <= 0) continue;
      const std::string name = std::string(state) == "not_started" ? "not started" : state;
      facts += (facts.empty() ? "" : ", ") +
               (counted ? std::to_string(n.get<int64_t>()) + " of " + std::to_string(total) + " "
                        : std::string()) +
               name;
    }
    line += (line.empty() ? "" : "; ") + std::string(stage) + " " +
            (facts.empty() ? "not started" : facts);
  }
  return "Children: " + line + ".";
}

std::string UsageSoFarLine(const json& usage, const json& model_requests) {
  if (!usage.is_object()) return "";
  const auto count = [&](const char* key) {
    const json n = usage.value(key, json());
    return n.is_number_integer() && n.get<int64_t>() >= 0 ? std::to_string(n.get<int64_t>())
                                                          : std::string("0");
  };
  double cost = 0;
  if (usage.contains("cost") && usage["cost"].is_object()) cost = usage["cost"].value("total", 0.0);
  char dollars[32];
  std::snprintf(dollars, sizeof(dollars), "$%.4f", cost);
  return "Usage so far: " + RequestsPrefix(model_requests) + count("input") + " input, " +
         count("output") + " output, " + count("cacheRead") + " cache read, " +
         count("cacheWrite") + " cache write tokens, " + dollars + ".";
}

namespace {

// Who reads an end text: the agent that launched the run, or a person or program watching.
enum class Reader { kAgent, kPerson };

// The lines after a failed or cancelled run's first line.
std::string EndFacts(const run::RunOutcome& outcome) {
  std::string out;
  for (const std::string& line :
       {ChildrenLine(outcome.progress), UsageSoFarLine(outcome.usage, outcome.model_requests)}) {
    if (!line.empty()) out += "\n" + line;
  }
  if (!outcome.summary_note.empty()) {
    // The store's note already says "failure summary unavailable: <why>".
    std::string note = outcome.summary_note;
    if (note.rfind("failure summary unavailable", 0) == 0) {
      note[0] = 'F';
    } else {
      note = "Failure summary unavailable: " + note;
    }
    out += "\n" + note;
  }
  return out + "\nArtifacts: " + outcome.artifact_dir;
}

// How the run can go on, last: the step after reading what went wrong.
std::string ResumeLine(Reader reader, const std::optional<tasks::ResumeHint>& resume) {
  if (!resume) return "";
  return "\n" + (reader == Reader::kAgent ? AgentResumeText(*resume) : PersonResumeText(*resume));
}

// How the reader gets a completed run's verified answer: the agent through bg_result, a person
// or a program (an RPC client, the TUI's notification) through the CLI that verifies it too.
std::string AnswerPointer(Reader reader, const std::string& id) {
  if (reader == Reader::kAgent) {
    return "Call bg_result({taskId:\"" + id + "\"}) for the verified answer.";
  }
  return "Read the verified answer with `pi-fusion show " + std::string(store::ShortRunId(id)) +
         "`.";
}

std::string EndText(Reader reader, const run::RunOutcome& outcome, const tasks::TaskInfo& task,
                    const std::optional<tasks::ResumeHint>& resume) {
  switch (outcome.end) {
    case run::RunEnd::kCompleted: {
      // research: a declared source no candidate could fetch is said with the end, not later.
      std::string warnings;
      for (const std::string& line : run::SourceWarningLines(outcome.source_report)) {
        warnings += "\n" + line;
      }
      return task.label + " " + task.id + " completed. " + AnswerPointer(reader, task.id) +
             warnings + "\nArtifacts: " + outcome.artifact_dir;
    }
    case run::RunEnd::kCancelled: {
      const std::string& message = outcome.error.message();
      const bool host_ended = task.cancelled_by == tasks::CancelSource::kQuit ||
                              task.cancelled_by == tasks::CancelSource::kReload ||
                              task.cancelled_by == tasks::CancelSource::kSignal;
      // The run recorded who cancelled it as its message ("cancelled by quitting Pi"): said once.
      const bool message_says_who = task.cancelled_by != tasks::CancelSource::kUnknown &&
                                    tasks::CancelSourceOfMessage(message) == task.cancelled_by;
      return task.label + " " + task.id + " " +
             (message_says_who ? message
                               : tasks::CancelledText(task.cancelled_by) + ": " + message) +
             (host_ended ? "\nPi cancels active runs when it quits or reloads." : "") +
             EndFacts(outcome) + ResumeLine(reader, resume);
    }
    case run::RunEnd::kFailed:
      break;
  }
  return run::FailureText(outcome) + EndFacts(outcome) + ResumeLine(reader, resume);
}

}  // namespace

std::string TerminalText(const run::RunOutcome& outcome, const tasks::TaskInfo& task,
                         const std::optional<tasks::ResumeHint>& resume) {
  return EndText(task.source == "tool" ? Reader::kAgent : Reader::kPerson, outcome, task, resume);
}

std::string NoticeText(const run::RunOutcome& outcome, const tasks::TaskInfo& task,
                       const std::optional<tasks::ResumeHint>& resume) {
  return EndText(Reader::kPerson, outcome, task, resume);
}

tasks::TaskState TaskStateOf(run::RunEnd end) {
  switch (end) {
    case run::RunEnd::kCompleted:
      return tasks::TaskState::kCompleted;
    case run::RunEnd::kCancelled:
      return tasks::TaskState::kKilled;
    case run::RunEnd::kFailed:
      break;
  }
  return tasks::TaskState::kFailed;
}

KillAnswer KillAnswerFor(const std::string& id, const Result<tasks::TaskInfo>& now) {
  KillAnswer answer;
  const bool stopped = now.ok() && now->state != tasks::TaskState::kRunning;
  const std::string state = stopped ? std::string(tasks::TaskStateName(now->state)) : "running";
  answer.details = {{"task_id", id}, {"state", state}};
  if (!stopped) {
    answer.text = "cancellation of " + id + " requested; it has not settled within " +
                  std::to_string(kKillWaitMs / 1000) + " s";
  } else if (now->state == tasks::TaskState::kCompleted ||
             now->state == tasks::TaskState::kFailed) {
    // The run ended before the cancellation reached it: nothing was killed.
    answer.text = NothingToStopText(id, now->state, false) + "\n" + now->terminal_text;
  } else {
    answer.text = "killed " + id + "\n" + now->terminal_text;
  }
  return answer;
}

KillAnswer KillAnswerForEarlier(const tasks::TaskInfo& run) {
  KillAnswer answer;
  answer.details = {{"task_id", run.id},
                    {"state", std::string(tasks::TaskStateName(run.state))},
                    {"earlier_process", true}};
  const std::string ended = run.terminal_text.empty() ? "" : "\n" + run.terminal_text;
  if (run.state == tasks::TaskState::kRunning) {
    answer.text = run.id +
                  " is running in another Pi process; bg_kill stops only runs of the Pi it is "
                  "called in. Call bg_kill there, or quit that Pi (quitting cancels its runs).";
    return answer;
  }
  answer.text = NothingToStopText(run.id, run.state, true) + ended;
  return answer;
}

std::string NothingToStopText(const std::string& id, tasks::TaskState state, bool earlier_process) {
  if (earlier_process) {
    const char* how = state == tasks::TaskState::kCompleted ? "completed"
                      : state == tasks::TaskState::kFailed  ? "failed"
                                                            : "was cancelled";
    return id + " ran in an earlier Pi process and " + how + "; nothing to stop.";
  }
  return state == tasks::TaskState::kCompleted
             ? id + " completed before it could be stopped; its answer is committed."
             : id + " failed before it could be stopped.";
}

}  // namespace pi_fusion::views
