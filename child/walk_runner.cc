#include "child/walk_runner.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "child/child_state.h"
#include "child/core/protected_names.h"
#include "child/core/walk_tools.h"
#include "child/js_convert.h"

namespace pi_fusion::child::file_tools {
namespace {

// A walk's output is read whole; this bounds it (rg stops at the cap, as Pi stops it at the limit).
constexpr size_t kWalkOutputCap = 32u << 20;
constexpr std::chrono::milliseconds kWalkTime{120 * 1000};

// pi-fusion-walk reports the protections that held in its first stderr line; it is taken off
// before the walker's own stderr is read.
constexpr std::string_view kProtectionLine = "pi-fusion walk: protection=";

void TakeProtection(WalkJob* job) {
  if (!job->outcome.ok()) return;
  std::string& err = job->outcome->stderr_bytes;
  if (err.compare(0, kProtectionLine.size(), kProtectionLine) != 0) return;
  const size_t end = err.find('\n');
  if (end == std::string::npos) return;
  job->protection = err.substr(kProtectionLine.size(), end - kProtectionLine.size());
  err.erase(0, end + 1);
}

// The places the walk jail covers with empty mounts: the protected names and pairs at the top of
// the project, and Pi's agent directory when it lies inside. Deeper ones are kept out by the
// walkers' exclusions and the per-line check, and no symlink is followed to reach them.
std::vector<std::string> JailMasks(const Shared& s) {
  std::vector<std::string> masks;
  for (const ProtectedRow& row : BuiltInProtectedRows()) masks.emplace_back(row.path);
  masks.emplace_back(".env");  // the env-file rule's plain name (IsEnvFileName)
  const std::string root = s.setup.wall->root() + "/";
  const std::string& agent = s.setup.agent_dir;
  if (agent.compare(0, root.size(), root) == 0) {
    const std::string inside = LexicalPath(agent.substr(root.size()));
    if (std::find(masks.begin(), masks.end(), inside) == masks.end()) masks.push_back(inside);
  }
  return masks;
}

}  // namespace

void RunWalk(Napi::Env env, const Shared& s, Napi::Value signal, std::unique_ptr<WalkJob> job) {
  Result<process::CancelToken> cancel = process::CancelToken::Create();
  if (!cancel.ok()) throw Napi::Error::New(env, cancel.status().message());
  FollowAbortSignal(env, signal, *cancel);
  // Node's event loop stays open until the walk's result is delivered.
  ChildState& state = State(env);
  napi_util::JsDispatcher* dispatcher = state.dispatcher.get();
  dispatcher->Hold(env);
  WalkHook on_walk = s.setup.on_walk;
  std::shared_ptr<WalkJob> walk = std::move(job);
  state.threads.Start(*cancel, [walk, token = *cancel, dispatcher, on_walk]() mutable {
    walk->outcome = process::RunChild(walk->spec, token);
    TakeProtection(walk.get());
    // The posted closure becomes the job's only owner, so it ends on the JS thread (or here, with
    // the closure, when the environment is going away).
    dispatcher->Post([done = std::move(walk), dispatcher, on_walk](Napi::Env env) {
      dispatcher->Release(env);
      RunAsJsCallback([&] {
        if (on_walk) on_walk(done->call_id, done->protection);
        done->finish(env, done->outcome);
      });
    });
  });
}

// The walker's command line: through pi-fusion-walk when there is one. `args` ends with the
// walked file's /proc name for a walk of one file (`start` is then that file).
process::ChildSpec WalkSpec(const Shared& s, std::string executable, std::vector<std::string> args,
                            const VettedObject& start) {
  process::ChildSpec spec;
  if (!s.setup.walk_helper.empty()) {
    spec.argv = {s.setup.walk_helper, "--project", s.setup.wall->root()};
    if (start.directory()) {
      spec.argv.insert(spec.argv.end(), {"--start", start.relative()});
    } else {
      // The jail names the file by its place in the project; outside it, by the open descriptor.
      spec.argv.insert(spec.argv.end(),
                       {"--target", start.relative(), "--outside-target", args.back()});
      args.pop_back();
    }
    for (const std::string& mask : JailMasks(s))
      spec.argv.insert(spec.argv.end(), {"--mask", mask});
    spec.argv.push_back("--");
  }
  spec.argv.push_back(std::move(executable));
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // The walk starts in the vetted directory itself, reached through our open descriptor. It gets
  // the child's environment, as Pi's own tools do (ripgrep runs with --no-config; what fd or git
  // ignore files add can only hide more).
  if (start.directory()) spec.cwd = start.ProcPath();
  for (char** entry = environ; *entry != nullptr; ++entry) spec.env.emplace_back(*entry);
  spec.limits.stdout_cap = kWalkOutputCap;
  spec.limits.stderr_cap = 64 * 1024;
  spec.limits.wall = kWalkTime;
  spec.limits.idle = kWalkTime;
  spec.limits.term_grace = std::chrono::milliseconds(500);
  return spec;
}

std::string ToolBinary(const Shared& s, const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  return FindExecutable(names, s.setup.agent_dir + "/bin", path ? path : "");
}

// Why a walk failed, or nullopt when its output can be used (a stop at the output cap is a use).
std::optional<std::string> WalkFailure(const Result<process::ChildOutcome>& outcome,
                                       const char* tool, bool exit_one_ok) {
  if (!outcome.ok())
    return std::string("Failed to run ") + tool + ": " + outcome.status().message();
  if (outcome->stop_reason == process::StopReason::kStdoutCap) return std::nullopt;
  if (outcome->stop_reason == process::StopReason::kCancelled) return "Operation aborted";
  if (!outcome->status.ok()) return outcome->status.message();
  const int code = outcome->exit_code.value_or(-1);
  if (code == 0 || (exit_one_ok && code == 1)) return std::nullopt;
  std::string err = outcome->stderr_bytes;
  while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
  return err.empty() ? std::string(tool) + " exited with code " + std::to_string(code) : err;
}

}  // namespace pi_fusion::child::file_tools
