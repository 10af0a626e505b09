#include "host/run_lifecycle.h"

#include <exception>
#include <optional>

#include "core/error_codes.h"
#include "core/json_text.h"
#include "run/adaptive_text.h"
#include "run/cancel_cause.h"
#include "run/cost_estimate.h"
#include "run/degraded_text.h"
#include "run/orchestrator.h"
#include "store/run_state.h"
#include "tasks/resume_hint.h"
#include "views/resume_texts.h"
#include "views/run_view.h"

namespace pi_fusion::host {
namespace {

Status InternalError(const std::string& what) {
  return Status::Error(kOrchestrationFailed, "internal error: " + what);
}

// Forwards the orchestrator's progress to the registry and the person.
class TaskObserver : public run::RunObserver {
 public:
  TaskObserver(tasks::TaskRegistry& registry, LifecycleSink& sink, const tasks::TaskInfo& task,
               const Clock& clock)
      : registry_(registry),
        sink_(sink),
        id_(task.id),
        workflow_(task.workflow),
        label_(task.label),
        clock_(clock) {}

  // Where no live view shows the run (print, json), the line the sink writes carries the stage
  // and the elapsed time in the TUI's words (tasks::PlainProgressLine).
  void Progress(const run::ProgressUpdate& update) override {
    const int64_t now_ms = tasks::ToEpochMs(clock_.WallNow());
    registry_.Progress(id_, update, now_ms);
    const Result<tasks::TaskInfo> task = registry_.Resolve(id_);
    sink_.Progress(task.ok() ? tasks::PlainProgressLine(task->progress, label_, id_, now_ms, update)
                             : label_ + ": " + update.line);
  }

  void CandidateLanded(const run::LandedCandidate& landed) override {
    sink_.CandidateLanded({id_, workflow_, label_, landed});
  }

  void Activity(const run::ChildActivity& activity) override { registry_.Activity(id_, activity); }

 private:
  tasks::TaskRegistry& registry_;
  LifecycleSink& sink_;
  std::string id_;
  std::string workflow_;
  std::string label_;
  const Clock& clock_;
};

// Preflight with every exception turned into its failure.
std::optional<run::PreparedRun> PreflightGuarded(run::RunRequest request,
                                                 const run::RunSeams& seams,
                                                 run::PreflightFailure* failure) {
  try {
    Result<run::PreparedRun> run = run::Preflight(std::move(request), seams, failure);
    if (run.ok()) return std::move(run).value();
  } catch (const std::exception& e) {
    failure->status = InternalError(ExceptionText(e));
  } catch (...) {
    failure->status = InternalError("unknown exception");
  }
  return std::nullopt;
}

// The session ended while preflight worked: the run ends durably as cancelled, childless, with
// the cause when the cancellation named one (run/cancel_cause.h).
views::LaunchReport CancelledBeforeStart(run::PreparedRun& run,
                                         const process::CancelToken& cancel) {
  const char* cause = cancel.cause();
  const Status cancelled = Status::Error(
      kChildCancelled, cause != nullptr
                           ? run::CancelledByMessage(cause) + " during preflight; no child started"
                           : "cancelled during preflight (the session ended); no child started");
  store::RunError error{cancelled.code(), cancelled.message(), std::nullopt, std::nullopt,
                        std::nullopt};
  if (cause != nullptr) error.cancelled_by = cause;
  run.store->Fail(store::RunState::kCancelled, error);
  return views::FailedLaunch({cancelled, run.store->run_dir()});
}

run::RunOutcome ExecuteGuarded(run::PreparedRun& run, const process::CancelToken& cancel,
                               run::RunObserver& observer) {
  // Execute() turns its own exceptions into a durable failed run; this is the last line.
  try {
    return run::Execute(run, cancel, observer);
  } catch (const std::exception& e) {
    run::RunOutcome outcome;
    outcome.error = InternalError(ExceptionText(e));
    outcome.artifact_dir = run.store->run_dir();
    return outcome;
  } catch (...) {
    run::RunOutcome outcome;
    outcome.error = InternalError("unknown exception");
    outcome.artifact_dir = run.store->run_dir();
    return outcome;
  }
}

}  // namespace

void RunLifecycle(run::RunRequest request, const run::RunSeams& seams,
                  tasks::TaskRegistry& registry, const process::CancelToken& cancel,
                  LifecycleSink& sink) {
  run::PreflightFailure failure;
  std::optional<run::PreparedRun> run = PreflightGuarded(std::move(request), seams, &failure);
  if (!run) return sink.Launched(views::FailedLaunch(failure));
  if (cancel.IsCancelled()) return sink.Launched(CancelledBeforeStart(*run, cancel));

  // From the prepared run: a resumed run's request is the old run's, read by preflight.
  const run::RunRequest& prepared = run->request;
  const std::string workflow_name(Name(prepared.request.workflow));
  const std::string description = tasks::TaskDescription(views::RequestText(prepared.request));
  const std::string source(store::RunSourceName(prepared.source));
  const std::string session_id = prepared.host.session_id;

  tasks::TaskInfo task{run->store->run_id(), workflow_name, tasks::TaskLabel(workflow_name),
                       description,          source,        run->store->run_dir()};
  task.question = description;  // the description is the request's prompt or objective
  task.session_id = session_id;
  if (run->resume) task.resumed_from = run->resume->manifest.run_id;
  task.panel = run->panel;
  const std::string estimate = run::CostEstimateText(*run);
  task.estimate = estimate.substr(0, estimate.find('\n'));
  task.progress.started_ms = tasks::ToEpochMs(seams.clock->WallNow());
  registry.Add(task, cancel);
  views::LaunchReport launched = views::Receipt(*run, task);
  launched.resumed_text = views::ResumedText(*run);
  sink.Launched(launched);
  sink.Progress(task.label + ": ready (" + task.id + ")");

  TaskObserver observer(registry, sink, task, *seams.clock);
  views::TerminalReport terminal;
  terminal.outcome = ExecuteGuarded(*run, cancel, observer);
  terminal.run_id = task.id;
  // The state first, so the text can say who cancelled the run; then the text.
  registry.Finish(task.id, views::TaskStateOf(terminal.outcome.end), "", "");
  Result<tasks::TaskInfo> ended = registry.Resolve(task.id);
  terminal.task = ended.ok() ? *ended : task;
  // Whether it can be resumed, from the terminal manifest the store holds (resume_hint.h).
  const std::optional<tasks::ResumeHint> resume = tasks::ResumeHintOf(run->store->Snapshot());
  terminal.text = views::TerminalText(terminal.outcome, terminal.task, resume);
  terminal.notice = views::NoticeText(terminal.outcome, terminal.task, resume);
  terminal.resume = resume;
  const std::string failure_line =
      terminal.outcome.end == run::RunEnd::kFailed ? run::FailureText(terminal.outcome) : "";
  std::string answer_note =
      run::AnswerNote(terminal.outcome.degraded, terminal.outcome.source_report);
  if (const std::string adaptive = run::AdaptiveStatus(terminal.outcome.adaptive);
      !adaptive.empty()) {
    answer_note += (answer_note.empty() ? "" : "; ") + adaptive;
  }
  registry.Finish(task.id, views::TaskStateOf(terminal.outcome.end), terminal.text, failure_line,
                  answer_note);
  terminal.task.terminal_text = terminal.text;
  terminal.task.failure = failure_line;
  terminal.task.answer_note = answer_note;
  terminal.view =
      views::TerminalRunView(*seams.fs, terminal.task, tasks::ToEpochMs(seams.clock->WallNow()));
  sink.Ended(terminal);
}

}  // namespace pi_fusion::host
