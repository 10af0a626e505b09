#include "addon/tool_handlers.h"

#include "addon/addon_state.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "addon/run_launcher.h"
#include "core/clock.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "host/host_events.h"
#include "schema/normalize.h"
#include "tasks/run_lookup.h"
#include "tasks/session_runs.h"
#include "views/host_texts.h"
#include "views/lifecycle_texts.h"
#include "views/result_answer.h"
#include "views/status_answer.h"
#include "workflow/workflow_spec.h"

namespace pi_fusion::addon {
namespace {

Result<nlohmann::json> Normalize(const schema::ToolSpec& spec, const nlohmann::json& args) {
  if (!spec.workflow) return schema::NormalizeToolArguments(spec.name, args);
  Result<schema::NormalizedRequest> request = schema::NormalizeFusionCall(spec.name, args);
  if (!request.ok()) return request.status();
  return std::move(request).value().request;
}

Napi::Value Resolved(Napi::Env env, Napi::Value value) {
  auto deferred = Napi::Promise::Deferred::New(env);
  deferred.Resolve(value);
  return deferred.Promise();
}

// Launches the run; the promise resolves with the receipt once preflight is durable.
Napi::Value RunFusionTool(Napi::Env env, const schema::ToolSpec& spec, Napi::Value params,
                          Napi::Object ctx, const std::string& tool_call_id,
                          Napi::Value on_update) {
  Result<nlohmann::json> args = ToJson(env, params, kInvalidArguments);
  if (!args.ok()) return Resolved(env, ErrorResult(env, args.status()));
  Result<schema::NormalizedRequest> request = schema::NormalizeFusionCall(spec.name, *args);
  if (!request.ok()) return Resolved(env, ErrorResult(env, request.status()));
  AddonState& state = State(env);
  if (state.pi.IsEmpty()) {
    return Resolved(env, ErrorResult(env, Status::Error(kOrchestrationFailed,
                                                        views::kSessionShuttingDownText)));
  }
  state.ui_ctx = Napi::Persistent(ctx);
  run::RunRequest run;
  run.host = SnapshotHost(
      env, PosixFileSystem(), state.pi.Value(), ctx, state.package_root, tool_call_id,
      workflow::SpecOf(request->workflow).context == workflow::ContextPolicy::kSessionProjection);
  run.request = std::move(request).value();
  run.source = store::RunSource::kTool;
  if (on_update.IsFunction()) {
    // A tool update while preflight works; later progress goes to the status line.
    on_update.As<Napi::Function>().Call({TextResult(
        env, views::PreflightUpdateText(Name(run.request.workflow)), nlohmann::json::object())});
  }
  auto deferred = Napi::Promise::Deferred::New(env);
  LaunchRun(
      env, std::move(run),
      [deferred](Napi::Env env, const Launch& launch) {
        if (!launch.ok) {
          Napi::Object result = TextResult(env, launch.receipt_text, launch.details);
          result.Set("isError", true);
          deferred.Resolve(result);
          return;
        }
        deferred.Resolve(TextResult(env, launch.receipt_text, launch.details));
      },
      [](Napi::Env env, const Terminal& terminal) { DeliverTerminal(env, terminal, true); });
  return deferred.Promise();
}

// Where a tool call runs, from its `ctx`: empty strings (and not persisted) where Pi says nothing.
struct CallPlace {
  std::string cwd;
  std::string session_id;
  std::string session_dir;     // Pi's directory of this project's session files
  bool session_saved = false;  // Pi keeps this session on disk
};

CallPlace PlaceOf(Napi::Object ctx) {
  CallPlace place;
  if (const Napi::Value cwd = ctx.Get("cwd"); cwd.IsString()) {
    place.cwd = cwd.As<Napi::String>().Utf8Value();
  }
  const Napi::Value sessions = ctx.Get("sessionManager");
  if (!sessions.IsObject()) return place;
  Napi::Object sm = sessions.As<Napi::Object>();
  const auto call = [&](const char* name) {
    Napi::Function method = Method(sm, name);
    return method.IsEmpty() ? Napi::Value() : method.Call(sm, {});
  };
  if (Napi::Value id = call("getSessionId"); !id.IsEmpty()) place.session_id = id.ToString();
  if (Napi::Value dir = call("getSessionDir"); !dir.IsEmpty()) place.session_dir = dir.ToString();
  if (Napi::Value saved = call("isPersisted"); !saved.IsEmpty()) {
    place.session_saved = saved.ToBoolean().Value();
  }
  return place;
}

// This session's runs from earlier Pi processes (before `pi -c`, a restart or a /reload), read
// from disk; runs this process knows are not repeated.
std::vector<tasks::TaskInfo> EarlierRuns(Napi::Env env, const CallPlace& place) {
  if (place.cwd.empty() || place.session_id.empty()) return {};
  const long pid = static_cast<long>(
      env.Global().Get("process").As<Napi::Object>().Get("pid").ToNumber().Int64Value());
  return tasks::NotLive(
      *State(env).tasks,
      tasks::SessionRunsOnDisk(PosixFileSystem(), SystemClock(), place.cwd, place.session_id, pid));
}

// Runs of this project whose Pi session was never saved (session_runs.h UnsavedSessionRuns):
// listed by bg_status in a saved session, the one `pi -c` opens instead of theirs.
std::vector<tasks::TaskInfo> UnsavedSessionRuns(Napi::Env env, const CallPlace& place) {
  if (place.cwd.empty() || !place.session_saved || place.session_dir.empty()) return {};
  FileSystem& fs = PosixFileSystem();
  return tasks::NotLive(*State(env).tasks, tasks::UnsavedSessionRuns(
                                               fs, SystemClock(), place.cwd,
                                               tasks::SavedSessionIds(fs, place.session_dir),
                                               place.session_id, views::kUnsavedSessionRunsListed));
}

// A run by id or prefix: this process's, this session's from earlier processes, else any run in
// this project's run store (another session's, or one whose session Pi never saved).
Result<tasks::TaskInfo> ResolveTask(Napi::Env env, Napi::Object ctx, const std::string& id) {
  const CallPlace place = PlaceOf(ctx);
  return tasks::ResolveTask(*State(env).tasks, EarlierRuns(env, place), PosixFileSystem(),
                            SystemClock(), place.cwd, id);
}

Napi::Object StatusResult(Napi::Env env, const nlohmann::json& args, Napi::Object ctx) {
  AddonState& state = State(env);
  std::vector<tasks::TaskInfo> list;
  if (args.contains("taskId")) {
    Result<tasks::TaskInfo> task = ResolveTask(env, ctx, args.at("taskId").get<std::string>());
    if (!task.ok()) return ErrorResult(env, task.status());
    list.push_back(*task);
  } else {
    // This session's runs: a session left by /new, /resume or /fork in this process keeps its
    // own (cancelled then), which bg_result still finds by id.
    const CallPlace place = PlaceOf(ctx);
    list = EarlierRuns(env, place);
    for (tasks::TaskInfo& task : state.tasks->List()) {
      if (task.session_id == place.session_id) list.push_back(std::move(task));
    }
    for (tasks::TaskInfo& task : UnsavedSessionRuns(env, place)) list.push_back(std::move(task));
  }
  const views::StatusAnswer view =
      views::BuildStatusAnswer(*state.tasks, list, tasks::ToEpochMs(SystemClock().WallNow()));
  return TextResult(env, view.text, view.details);
}

Napi::Object ResultOf(Napi::Env env, const nlohmann::json& args, Napi::Object ctx) {
  const std::string id = args.at("taskId").get<std::string>();
  Result<tasks::TaskInfo> task = ResolveTask(env, ctx, id);
  if (!task.ok()) return ErrorResult(env, task.status());
  const views::Delivery delivery = args.value("delivery", "inline") == "artifact"
                                       ? views::Delivery::kArtifact
                                       : views::Delivery::kInline;
  Result<views::ResultAnswer> view =
      views::BuildResultAnswer(PosixFileSystem(), SystemClock(), *task, delivery);
  if (!view.ok()) return ErrorResult(env, view.status());
  Napi::Object result = TextResult(env, view->text, view->details);
  if (view->attach_usage) result.Set("usage", FromJson(env, *view->attach_usage));
  return result;
}

// Waits for the cancelled run's terminal event (run_launcher.cc hands it to the addon's kill
// waits), at most kKillWaitMs: one timer for that cap, cleared once the answer is given, so a
// print-mode Pi is not held for the rest of it.
Napi::Value WaitForKill(Napi::Env env, const std::string& id) {
  auto deferred = Napi::Promise::Deferred::New(env);
  auto cap = std::make_shared<Napi::Reference<Napi::Value>>();
  AddonState& state = State(env);
  const uint64_t ticket =
      state.kill_waits.Add(id, [env, deferred, cap](const views::KillAnswer& answer) {
        if (!cap->IsEmpty()) {
          env.Global().Get("clearTimeout").As<Napi::Function>().Call({cap->Value()});
          cap->Reset();
        }
        deferred.Resolve(TextResult(env, answer.text, answer.details));
      });
  Napi::Function expire = Napi::Function::New(
      env,
      [ticket](const Napi::CallbackInfo& info) {
        AddonState& state = State(info.Env());
        state.kill_waits.Expire(ticket, *state.tasks);
      },
      "bg_kill_wait_cap");
  *cap = Napi::Persistent(env.Global()
                              .Get("setTimeout")
                              .As<Napi::Function>()
                              .Call({expire, Napi::Number::New(env, views::kKillWaitMs)}));
  return deferred.Promise();
}

Napi::Value KillTask(Napi::Env env, const nlohmann::json& args, Napi::Object ctx) {
  const std::string id = args.at("taskId").get<std::string>();
  Result<tasks::TaskInfo> task = State(env).tasks->Kill(id);
  if (!task.ok()) {
    // Not a run of this process: a run of an earlier one, or of another session, is answered from
    // disk.
    if (State(env).tasks->Resolve(id).ok()) return Resolved(env, ErrorResult(env, task.status()));
    Result<tasks::TaskInfo> earlier = ResolveTask(env, ctx, id);
    if (!earlier.ok()) return Resolved(env, ErrorResult(env, earlier.status()));
    const views::KillAnswer answer = views::KillAnswerForEarlier(*earlier);
    return Resolved(env, TextResult(env, answer.text, answer.details));
  }
  return WaitForKill(env, task->id);
}

Napi::Value RunTaskTool(Napi::Env env, const schema::ToolSpec& spec, Napi::Value params,
                        Napi::Object ctx) {
  Result<nlohmann::json> raw = ToJson(env, params, kInvalidArguments);
  if (!raw.ok()) return Resolved(env, ErrorResult(env, raw.status()));
  Result<nlohmann::json> args = schema::NormalizeToolArguments(spec.name, *raw);
  if (!args.ok()) return Resolved(env, ErrorResult(env, args.status()));
  if (spec.name == "bg_status") return Resolved(env, StatusResult(env, *args, ctx));
  if (spec.name == "bg_kill") return KillTask(env, *args, ctx);
  return Resolved(env, ResultOf(env, *args, ctx));
}

}  // namespace

Napi::Function MakeArgumentPreparer(Napi::Env env, const schema::ToolSpec& spec) {
  const schema::ToolSpec* tool = &spec;
  return Napi::Function::New(
      env,
      [tool](const Napi::CallbackInfo& info) -> Napi::Value {
        Napi::Env env = info.Env();
        Result<nlohmann::json> raw = ToJson(env, info[0], kInvalidArguments);
        Result<nlohmann::json> args = raw.ok() ? Normalize(*tool, *raw) : raw;
        if (!args.ok()) {
          Napi::Error error = Napi::Error::New(env, views::ToolErrorText(args.status()));
          error.Set("code", args.status().code());
          throw error;
        }
        return FromJson(env, *args);
      },
      spec.name + "_prepare");
}

Napi::Function MakeToolExecutor(Napi::Env env, const schema::ToolSpec& spec) {
  const schema::ToolSpec* tool = &spec;
  return Napi::Function::New(
      env,
      [tool](const Napi::CallbackInfo& info) -> Napi::Value {
        Napi::Env env = info.Env();
        const std::string call_id = info.Length() > 0 && info[0].IsString()
                                        ? info[0].As<Napi::String>().Utf8Value()
                                        : std::string();
        Napi::Value params = info.Length() > 1 ? info[1] : env.Undefined();
        Napi::Object ctx = info.Length() > 4 && info[4].IsObject() ? info[4].As<Napi::Object>()
                                                                   : Napi::Object::New(env);
        Napi::Value on_update = info.Length() > 3 ? info[3] : env.Undefined();
        try {
          return !tool->workflow ? RunTaskTool(env, *tool, params, ctx)
                                 : RunFusionTool(env, *tool, params, ctx, call_id, on_update);
        } catch (const Napi::Error&) {
          throw;  // a pending JS exception: Pi turns it into a tool error
        } catch (const std::exception&) {
          // Nothing may unwind into the host; the text of a library exception can quote the
          // model's arguments, so it is not repeated.
          return Resolved(env,
                          ErrorResult(env, Status::Error(kOrchestrationFailed,
                                                         views::InternalErrorText(tool->name))));
        }
      },
      spec.name);
}

Result<tasks::TaskInfo> ResolveRunById(Napi::Env env, Napi::Object ctx, const std::string& id) {
  return ResolveTask(env, ctx, id);
}

}  // namespace pi_fusion::addon
