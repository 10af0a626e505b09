#include "addon/report_command.h"

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "addon/addon_state.h"
#include "addon/command_launch.h"
#include "addon/js_values.h"
#include "addon/tool_handlers.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "tasks/run_catalog.h"
#include "views/report_texts.h"

namespace pi_fusion::addon {
namespace {

// `pi-fusion report` exit statuses (docs/cli/report.md): written, and written from a run that
// does not verify.
constexpr int kWritten = 0;
constexpr int kWrittenUnverified = 3;

std::string CwdOf(Napi::Object ctx) {
  const Napi::Value cwd = ctx.Get("cwd");
  return cwd.IsString() ? cwd.As<Napi::String>().Utf8Value() : "";
}

void Fail(Napi::Env env, Napi::Object ctx, const std::string& text) {
  Tell(env, ctx, text, "error");
  if (!HasUI(ctx)) FailProcess(env);
}

// The run directory `query` names, or this project's newest run when it is empty.
Result<std::string> RunDirOf(Napi::Env env, Napi::Object ctx, const std::string& query,
                             const std::string& cwd) {
  if (!query.empty()) {
    Result<tasks::TaskInfo> task = ResolveRunById(env, ctx, query);
    if (!task.ok()) return task.status();
    return task->artifact_dir;
  }
  const std::vector<tasks::RunListing> runs = tasks::ListRuns(PosixFileSystem(), cwd);
  if (runs.empty()) return Status::Error(kInvalidArguments, views::NoRunToReportText(cwd));
  return runs.front().run_dir;
}

// What runProgram resolved with: the report's path, or why there is none.
Napi::Value OnReported(Napi::Env env, Napi::Object ctx, Napi::Value value) {
  if (!value.IsObject()) {
    Fail(env, ctx, views::ReportFailedText("pi-fusion report did not run"));
    return env.Undefined();
  }
  Napi::Object result = value.As<Napi::Object>();
  const int code = result.Get("code").ToNumber().Int32Value();
  std::string out = result.Get("stdout").ToString().Utf8Value();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  if ((code == kWritten || code == kWrittenUnverified) && !out.empty()) {
    const bool tui = HasUI(ctx);
    Tell(env, ctx, views::ReportWrittenText(out, tui, code == kWrittenUnverified),
         code == kWritten ? "info" : "warning");
    return env.Undefined();
  }
  std::string err = result.Get("stderr").ToString().Utf8Value();
  while (!err.empty() && err.back() == '\n') err.pop_back();
  Fail(env, ctx,
       views::ReportFailedText(err.empty() ? "pi-fusion report exited " + std::to_string(code)
                                           : err));
  return env.Undefined();
}

}  // namespace

Result<std::string> PiFusionBeside(const std::string& addon_path) {
  const std::filesystem::path library(addon_path);
  const std::filesystem::path dir = library.parent_path();
  const std::string beside = (dir / "pi-fusion").string();
  const std::string in_bin = (dir.parent_path() / "bin" / "pi-fusion").string();
  for (const std::string& path : {beside, in_bin}) {
    std::error_code ec;
    if (library.is_absolute() && std::filesystem::is_regular_file(path, ec) &&
        ::access(path.c_str(), X_OK) == 0) {
      return path;
    }
  }
  return Status::Error(kConfigInvalid, "the pi-fusion executable of this plugin is neither at " +
                                           beside + " nor at " + in_bin +
                                           "; reinstall the package or rebuild (scripts/setup)");
}

Napi::Value FusionReportCommand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object ctx = info[1].As<Napi::Object>();
  AddonState& state = State(env);
  const std::string cwd = CwdOf(ctx);
  Result<std::string> run_dir = RunDirOf(env, ctx, TypedText(info[0]), cwd);
  if (!run_dir.ok()) {
    Fail(env, ctx, views::ReportFailedText(run_dir.status().message()));
    return Resolved(env);
  }
  Result<std::string> program = PiFusionBeside(state.addon_path);
  if (!program.ok() || state.run_program.IsEmpty()) {
    Fail(env, ctx,
         views::ReportFailedText(program.ok() ? "the loader gave no way to run pi-fusion"
                                              : program.status().message()));
    return Resolved(env);
  }
  Napi::Array args = Napi::Array::New(env);
  for (const std::string& arg : {std::string("report"), *run_dir, std::string("--cwd"), cwd}) {
    args.Set(args.Length(), arg);
  }
  Napi::Value ran = state.run_program.Value().Call({Napi::String::New(env, *program), args});
  auto ctx_ref = std::make_shared<Napi::ObjectReference>(Napi::Persistent(ctx));
  return Then(env, ran, [ctx_ref](Napi::Env env, Napi::Value value) {
    return OnReported(env, ctx_ref->Value(), value);
  });
}

}  // namespace pi_fusion::addon
