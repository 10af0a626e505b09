#include "addon/resume_command.h"

#include <memory>
#include <string>
#include <vector>

#include "addon/addon_state.h"
#include "addon/command_launch.h"
#include "addon/host_snapshot.h"
#include "addon/js_values.h"
#include "addon/tool_handlers.h"
#include "core/file_system.h"
#include "views/host_texts.h"
#include "views/resume_texts.h"

namespace pi_fusion::addon {
namespace {

// Resumes the run `query` names (once the agent is idle: the same contract as /fusion).
Napi::Value ResumeRun(Napi::Env env, Napi::Object ctx, const std::string& query) {
  AddonState& state = State(env);
  if (state.pi.IsEmpty()) return Resolved(env);
  Result<tasks::TaskInfo> task = ResolveRunById(env, ctx, query);
  if (!task.ok()) {
    Tell(env, ctx, "/fusion-resume: " + task.status().message(), "error");
    if (!HasUI(ctx)) FailProcess(env);
    return Resolved(env);
  }
  run::RunRequest run;
  // The request, input and routes are the old run's: preflight reads them from its directory.
  run.host =
      SnapshotHost(env, PosixFileSystem(), state.pi.Value(), ctx, state.package_root, "", false);
  run.source = store::RunSource::kCommand;
  run.resume_run_dir = task->artifact_dir;
  return LaunchFromCommand(env, ctx, std::move(run), views::ResumeStartedText);
}

Napi::Value ResumeWhenIdle(Napi::Env env, Napi::Object ctx, const std::string& query) {
  return WhenIdle(env, ctx,
                  [query](Napi::Env env, Napi::Object ctx) { return ResumeRun(env, ctx, query); });
}

// The TUI's picker of this project's resumable runs; the chosen one is resumed.
Napi::Value PickAndResume(Napi::Env env, Napi::Object ctx,
                          const std::vector<tasks::RunListing>& runs) {
  auto ids = std::make_shared<std::vector<std::pair<std::string, std::string>>>();
  Napi::Array labels = Napi::Array::New(env);
  for (const tasks::RunListing& run : runs) {
    ids->emplace_back(views::ResumePickerLabel(run), run.run_id);
    labels.Set(labels.Length(), ids->back().first);
  }
  Napi::Object ui = ctx.Get("ui").As<Napi::Object>();
  Napi::Value chosen =
      Method(ui, "select").Call(ui, {Napi::String::New(env, views::kResumePickerTitle), labels});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, chosen, [ctx_ref, ids](Napi::Env env, Napi::Value value) -> Napi::Value {
    if (!value.IsString()) return env.Undefined();  // closed: nothing starts
    const std::string label = value.As<Napi::String>().Utf8Value();
    for (const auto& [shown, id] : *ids) {
      if (shown == label) return ResumeWhenIdle(env, ctx_ref->Value(), id);
    }
    return env.Undefined();
  });
}

}  // namespace

Napi::Value FusionResumeCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  const std::string query = TypedText(info[0]);
  if (!query.empty()) return ResumeWhenIdle(env, ctx, query);
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
