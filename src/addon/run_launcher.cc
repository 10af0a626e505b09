#include "addon/run_launcher.h"

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "addon/progress_display.h"
#include "addon/renderers.h"
#include "core/file_system.h"
#include "store/wall_clock.h"
#include "tasks/run_view.h"
#include "tasks/task_registry.h"
#include "workflow/orchestrator.h"
#include "workflow/preflight.h"

namespace pi_fusion::addon {
namespace {

using nlohmann::json;

class DispatchingObserver : public workflow::RunObserver {
 public:
  DispatchingObserver(JsDispatcher* dispatcher, std::shared_ptr<tasks::TaskRegistry> tasks,
                      std::string run_id, std::string label)
      : dispatcher_(dispatcher),
        tasks_(std::move(tasks)),
        run_id_(std::move(run_id)),
        label_(std::move(label)) {}

  void Progress(const workflow::ProgressUpdate& update) override {
    const std::string text = label_ + ": " + update.line;
    tasks_->Progress(run_id_, update, tasks::ToEpochMs(store::SystemWallClock().Now()));
    dispatcher_->Post([text](Napi::Env env) { ShowRunProgress(env, text); });
  }

 private:
  JsDispatcher* dispatcher_;
  std::shared_ptr<tasks::TaskRegistry> tasks_;
  std::string run_id_;
  std::string label_;
};

std::string Label(const std::string& workflow) { return "fusion " + workflow; }

std::string PreflightLine(const workflow::PreparedRun& run) {
  std::string routes;
  for (size_t i = 0; i < 3; ++i) {
    routes += (i ? ", " : "") + run.models.routes[i].model.QualifiedId();
  }
  const size_t warnings = run.plan.warnings.size();
  return "Preflight: routes admitted (candidates " + routes + "; evaluator " +
         run.models.route(config::Slot::kEvaluator).model.QualifiedId() + "; merger " +
         run.models.route(config::Slot::kMerger).model.QualifiedId() + "); budget plan written" +
         (warnings ? " with " + std::to_string(warnings) + " warning(s)" : ", no warnings") + ".";
}

Launch Receipt(const workflow::PreparedRun& run, const tasks::TaskInfo& task) {
  Launch launch;
  launch.ok = true;
  launch.run_id = task.id;
  launch.artifact_dir = task.artifact_dir;
  launch.receipt_text = "Started " + task.label + " in the background (" + task.id +
                        ").\nArtifacts: " + task.artifact_dir + "\n" + PreflightLine(run) +
                        "\nWait for the terminal notification, then call bg_result({taskId:\"" +
                        task.id + "\"}). Do not poll.";
  launch.details = {{"schema_version", "pi-background-tasks.fusion-launch.v1"},
                    {"task",
                     {{"id", task.id},
                      {"label", task.label},
                      {"description", task.description},
                      {"notify_on_completion", true},
                      {"trigger_on_completion", task.source == "tool"},
                      {"stop_wait_ms", 30000}}},
                    {"run_id", task.id},
                    {"workflow", task.workflow},
                    {"artifact_dir", task.artifact_dir}};
  return launch;
}

Launch FailedLaunch(const workflow::PreflightFailure& failure) {
  Launch launch;
  launch.error = failure.status;
  launch.artifact_dir = failure.artifact_dir;
  launch.receipt_text =
      "Fusion failed (stage=preflight, slot=none, attempt=none): " + failure.status.message() +
      (failure.artifact_dir.empty() ? "" : "\nArtifacts: " + failure.artifact_dir) +
      "\n(error code: " + failure.status.code() + ")";
  launch.details = {
      {"error", {{"code", failure.status.code()}, {"message", failure.status.message()}}}};
  if (!failure.artifact_dir.empty()) launch.details["artifact_dir"] = failure.artifact_dir;
  return launch;
}

std::string TerminalText(const workflow::RunOutcome& outcome, const tasks::TaskInfo& task) {
  switch (outcome.end) {
    case workflow::RunEnd::kCompleted:
      return task.label + " " + task.id + " completed. Call bg_result({taskId:\"" + task.id +
             "\"}) for the verified answer.\nArtifacts: " + outcome.artifact_dir;
    case workflow::RunEnd::kCancelled: {
      const std::string who = tasks::CancelSourceText(task.cancelled_by);
      const bool host_ended = task.cancelled_by == tasks::CancelSource::kQuit ||
                              task.cancelled_by == tasks::CancelSource::kReload;
      return task.label + " " + task.id + " cancelled" + (who.empty() ? "" : " by " + who) + ": " +
             outcome.error.message() +
             (host_ended ? "\nPi cancels active runs when it quits or reloads." : "") +
             "\nArtifacts: " + outcome.artifact_dir;
    }
    case workflow::RunEnd::kFailed:
      break;
  }
  return workflow::FailureText(outcome);
}

tasks::TaskState TaskStateOf(workflow::RunEnd end) {
  switch (end) {
    case workflow::RunEnd::kCompleted:
      return tasks::TaskState::kCompleted;
    case workflow::RunEnd::kCancelled:
      return tasks::TaskState::kKilled;
    case workflow::RunEnd::kFailed:
      break;
  }
  return tasks::TaskState::kFailed;
}

void ResolveSettleWaiters(Napi::Env env);

// The worker: preflight, receipt, run, terminal state. Owns nothing JS; talks through `dispatcher`.
void RunWorker(JsDispatcher* dispatcher, std::shared_ptr<tasks::TaskRegistry> tasks,
               workflow::RunRequest request, process::CancelToken cancel, LaunchCallback on_launch,
               TerminalCallback on_terminal) {
  const std::string workflow_name = request.request.workflow;
  const std::string description = tasks::TaskDescription(request.request.canonical);
  const std::string source = request.source == store::RunSource::kTool ? "tool" : "command";
  workflow::PreflightFailure failure;
  Result<workflow::PreparedRun> run = workflow::Preflight(std::move(request), PosixFileSystem(),
                                                          store::SystemWallClock(), &failure);
  if (!run.ok()) {
    Launch launch = FailedLaunch(failure);
    dispatcher->Post([launch, on_launch](Napi::Env env) {
      on_launch(env, launch);
      State(env).dispatcher->Release(env);
    });
    return;
  }
  tasks::TaskInfo task{run->store->run_id(), workflow_name, Label(workflow_name),
                       description,          source,        run->store->run_dir()};
  task.progress.started_ms = tasks::ToEpochMs(store::SystemWallClock().Now());
  tasks->Add(task, cancel);
  Launch launch = Receipt(*run, task);
  dispatcher->Post([launch, on_launch](Napi::Env env) { on_launch(env, launch); });
  dispatcher->Post([line = task.label + ": ready (" + task.id + ")"](Napi::Env env) {
    ShowRunProgress(env, line);
  });

  DispatchingObserver observer(dispatcher, tasks, task.id, task.label);
  workflow::RunOutcome outcome = workflow::Execute(run.value(), cancel, observer);
  tasks->Finish(task.id, TaskStateOf(outcome.end), "");
  Result<tasks::TaskInfo> resolved = tasks->Resolve(task.id);
  const tasks::TaskInfo ended = resolved.ok() ? *resolved : task;
  Terminal terminal{outcome, task.id, TerminalText(outcome, ended), ended, nlohmann::json()};
  tasks->Finish(task.id, TaskStateOf(outcome.end), terminal.text);
  terminal.task.terminal_text = terminal.text;
  terminal.view = tasks::TerminalRunView(PosixFileSystem(), terminal.task,
                                         tasks::ToEpochMs(store::SystemWallClock().Now()));
  dispatcher->Post([terminal, on_terminal](Napi::Env env) {
    on_terminal(env, terminal);
    State(env).dispatcher->Release(env);
    ResolveSettleWaiters(env);
  });
}

void ResolveSettleWaiters(Napi::Env env) {
  AddonState& state = State(env);
  if (state.tasks->RunningCount() > 0 || state.settle_waiters.empty()) return;
  Napi::Value result = env.Undefined();
  if (!state.pending_wakes.empty()) {
    Napi::Array entries = Napi::Array::New(env);
    for (const std::string& text : state.pending_wakes) {
      Napi::Object entry = Napi::Object::New(env);
      entry.Set("type", "custom_message");
      entry.Set("customType", kTaskMessageType);
      entry.Set("content", text);
      entry.Set("display", true);
      entries.Set(entries.Length(), entry);
    }
    Napi::Object value = Napi::Object::New(env);
    value.Set("entries", entries);
    value.Set("continue", true);
    result = value;
    state.pending_wakes.clear();
  }
  std::vector<Napi::Promise::Deferred> waiters = std::move(state.settle_waiters);
  state.settle_waiters.clear();
  for (Napi::Promise::Deferred& waiter : waiters) waiter.Resolve(result);
}

}  // namespace

void LaunchRun(Napi::Env env, workflow::RunRequest request, LaunchCallback on_launch,
               TerminalCallback on_terminal) {
  AddonState& state = State(env);
  Result<process::CancelToken> cancel = process::CancelToken::Create();
  if (!cancel.ok()) {
    workflow::PreflightFailure failure{cancel.status(), ""};
    on_launch(env, FailedLaunch(failure));
    return;
  }
  state.dispatcher->Hold(env);
  state.workers.emplace_back(RunWorker, state.dispatcher.get(), state.tasks, std::move(request),
                             *cancel, std::move(on_launch), std::move(on_terminal));
}

void DeliverTerminal(Napi::Env env, const Terminal& terminal, bool wake_agent) {
  AddonState& state = State(env);
  const bool failed = terminal.outcome.end != workflow::RunEnd::kCompleted;
  if (state.pi.IsEmpty() || state.ui_ctx.IsEmpty()) {
    // The registration this run belonged to has ended (a /reload): say it in the next one.
    state.carried_notices.push_back(terminal.text);
    return;
  }
  RefreshRunProgress(env);
  Napi::Object ctx = state.ui_ctx.Value();
  const std::string mode = ModeOf(ctx);
  const bool interactive = mode == "tui" || mode == "rpc";
  const bool from_command = terminal.task.source == "command";
  // A /fusion run shows its answer (or failure) as a display-only entry: the TUI renders it, and
  // json and rpc clients get it as an `entry_appended` event. Print mode prints it instead.
  bool shown = false;
  if (from_command && mode != "print" && (mode != "tui" || CanRender(env))) {
    shown = AppendRunEntry(env, terminal.view);
  }
  // RPC clients render nothing themselves: they always get the notification. The TUI gets one
  // only when nothing rendered shows the end (no render module, or an older Pi).
  const bool rendered = shown || (wake_agent && CanRender(env));
  if (mode == "rpc" || (mode == "tui" && !rendered)) {
    Napi::Object ui = UiOf(env);
    if (!ui.IsEmpty()) {
      Method(ui, "notify")
          .Call(ui, {Napi::String::New(env, terminal.text),
                     Napi::String::New(env, failed ? "error" : "info")});
    }
  }

  // The agent asked for this cancellation itself: it already has bg_kill's result.
  if (!wake_agent || terminal.task.cancelled_by == tasks::CancelSource::kBgKill) return;
  if (!interactive) {
    // Print mode: the agent is held in agent_before_settle and woken there.
    state.pending_wakes.push_back(terminal.text);
    return;
  }
  Napi::Object pi = state.pi.Value();
  nlohmann::json view = terminal.view;
  view.erase("answer");  // the agent fetches it with bg_result, whose result shows it
  Napi::Object message = Napi::Object::New(env);
  message.Set("customType", kTaskMessageType);
  message.Set("content", terminal.text);
  message.Set("display", true);
  message.Set("details", FromJson(env, {{"run_id", terminal.run_id},
                                        {"state", failed ? "failed" : "completed"},
                                        {"view", view}}));
  Napi::Object options = Napi::Object::New(env);
  options.Set("triggerTurn", true);
  options.Set("deliverAs", "followUp");
  Method(pi, "sendMessage").Call(pi, {message, options});
}

Napi::Value WaitForRunsBeforeSettle(Napi::Env env) {
  AddonState& state = State(env);
  if (state.tasks->RunningCount() == 0 && state.pending_wakes.empty()) return env.Undefined();
  Napi::Promise::Deferred waiter = Napi::Promise::Deferred::New(env);
  state.settle_waiters.push_back(waiter);
  ResolveSettleWaiters(env);
  return waiter.Promise();
}

}  // namespace pi_fusion::addon
