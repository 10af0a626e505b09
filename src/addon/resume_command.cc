#include "addon/resume_command.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "addon/addon_state.h"
#include "addon/command_launch.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "addon/tool_handlers.h"
#include "core/file_system.h"
#include "run/resume_arguments.h"
#include "views/host_texts.h"
#include "views/resume_texts.h"

namespace pi_fusion::addon {
namespace {

// Tells the person what went wrong; in print and json modes, Pi then exits 1.
Napi::Value Refuse(Napi::Env env, Napi::Object ctx, const std::string& message) {
  Tell(env, ctx, message, "error");
  if (!HasUI(ctx)) FailProcess(env);
  return Resolved(env);
}

// Resumes the run `args.query` names, on other routes for the slots `args.swaps` names (once
// the agent is idle: the same contract as /fusion).
Napi::Value ResumeRun(Napi::Env env, Napi::Object ctx, const run::ResumeArguments& args) {
  AddonState& state = State(env);
  if (state.pi.IsEmpty()) return Resolved(env);
  Result<tasks::TaskInfo> task = ResolveRunById(env, ctx, args.query);
  if (!task.ok()) return Refuse(env, ctx, "/fusion-resume: " + task.status().message());
  run::RunRequest run;
  // The request, input and routes are the old run's: preflight reads them from its directory.
  run.host =
      SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx, state.package_root, "", false);
  run.source = store::RunSource::kCommand;
  run.resume_run_dir = task->artifact_dir;
  run.route_swaps = args.swaps;
  run.panel = args.panel;
  return LaunchFromCommand(env, ctx, std::move(run), views::ResumeStartedText);
}

Napi::Value ResumeWhenIdle(Napi::Env env, Napi::Object ctx, run::ResumeArguments args) {
  return WhenIdle(env, ctx, [args = std::move(args)](Napi::Env env, Napi::Object ctx) {
    return ResumeRun(env, ctx, args);
  });
}

// A select dialog of `options`; `then` gets the index chosen (never called when it is closed).
Napi::Value Choose(Napi::Env env, Napi::Object ctx, const std::string& title,
                   std::vector<std::string> options,
                   std::function<Napi::Value(Napi::Env, Napi::Object, size_t)> then) {
  Napi::Array labels = Napi::Array::New(env);
  for (const std::string& option : options) labels.Set(labels.Length(), option);
  Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
  Napi::Value chosen = Method(ui, "select").Call(ui, {Napi::String::New(env, title), labels});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  auto shared = std::make_shared<std::vector<std::string>>(std::move(options));
  return Then(env, chosen,
              [ctx_ref, shared, then = std::move(then)](Napi::Env env, Napi::Value value) {
                if (!value.IsString()) return env.Undefined();  // closed: nothing starts
                const std::string label = value.As<Napi::String>().Utf8Value();
                for (size_t i = 0; i < shared->size(); ++i) {
                  if ((*shared)[i] == label) return then(env, ctx_ref->Value(), i);
                }
                return env.Undefined();
              });
}

// After the picker, for a run that failed on a model: the same models, or another model for the
// failed route chosen from those admitted now.
Napi::Value ChooseModelsAndResume(Napi::Env env, Napi::Object ctx, const std::string& run_id,
                                  Slot failed) {
  AddonState& state = State(env);
  const run::HostSnapshot host = SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx,
                                              state.package_root, "", /*with_branch=*/false);
  std::vector<std::string> routes = views::SwapChoices(host.registry);
  return Choose(
      env, ctx, views::ResumeModelsTitle(run_id), views::ResumeModelsOptions(failed),
      [run_id, failed, routes](Napi::Env env, Napi::Object ctx, size_t option) -> Napi::Value {
        if (option == 0) return ResumeWhenIdle(env, ctx, {run_id, {}});
        if (routes.empty()) return Refuse(env, ctx, views::kNoOtherModelText);
        return Choose(env, ctx, views::SwapModelTitle(failed), routes,
                      [run_id, failed, routes](Napi::Env env, Napi::Object ctx, size_t i) {
                        return ResumeWhenIdle(env, ctx, {run_id, {{failed, routes[i]}}});
                      });
      });
}

// The TUI's picker of this project's resumable runs; the chosen one is resumed (on other models
// when the person asks so, for a run that failed on one).
Napi::Value PickAndResume(Napi::Env env, Napi::Object ctx,
                          const std::vector<tasks::RunListing>& runs) {
  std::vector<std::string> labels;
  std::vector<std::pair<std::string, std::optional<Slot>>> picks;  // run id, failed route
  for (const tasks::RunListing& run : runs) {
    labels.push_back(views::ResumePickerLabel(run));
    const std::optional<tasks::ResumeHint> hint = run.Resume();
    picks.emplace_back(run.run_id, hint ? hint->failed_route : std::nullopt);
  }
  return Choose(env, ctx, views::kResumePickerTitle, std::move(labels),
                [picks](Napi::Env env, Napi::Object ctx, size_t i) -> Napi::Value {
                  const auto& [run_id, failed] = picks[i];
                  if (failed) return ChooseModelsAndResume(env, ctx, run_id, *failed);
                  return ResumeWhenIdle(env, ctx, {run_id, {}});
                });
}

}  // namespace

Napi::Value FusionResumeCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  Result<run::ResumeArguments> args = run::ParseResumeArguments(TypedText(info[0]));
  if (!args.ok()) return Refuse(env, ctx, args.status().message());
  if (!args->query.empty()) return ResumeWhenIdle(env, ctx, *std::move(args));
  const Napi::Value cwd = ctx.Get("cwd");
  const std::string dir = cwd.IsString() ? cwd.As<Napi::String>().Utf8Value() : "";
  const std::vector<tasks::RunListing> runs =
      dir.empty() ? std::vector<tasks::RunListing>() : views::ResumableRuns(PosixFileSystem(), dir);
  if (!HasUI(ctx)) {
    Tell(env, ctx, views::ResumeUsageText(runs), "error");
    FailProcess(env);
    return Resolved(env);
  }
  if (runs.empty()) {
    Tell(env, ctx, views::NothingToResumeText(dir), "info");
    return Resolved(env);
  }
  return PickAndResume(env, ctx, runs);
}

}  // namespace pi_fusion::addon
