// Entry point of pi_fusion_child.node, the companion child-extension library. Exports
// `register(pi)`, called by extensions/fusion-child.ts inside a Fusion child `pi` process.
#include <dlfcn.h>
#include <napi.h>
#include <algorithm>

#include <cstdlib>
#include <filesystem>

#include "child/child_state.h"
#include "child/core/child_config.h"
#include "child/core/orphan_guard.h"
#include "child/core/protected_places.h"
#include "child/core/web_fetch_runner.h"
#include "child/file_tools.h"
#include "child/web_fetch_tool.h"
#include "core/env_vars.h"
#include "core/error_codes.h"
#include "core/file_system.h"
#include "core/pooled_task.h"

namespace pi_fusion::child {

ChildState& State(Napi::Env env) { return *env.GetInstanceData<ChildState>(); }

ChildState::~ChildState() {
  threads.CancelAndJoin();
  if (dispatcher) dispatcher->Close();
}

namespace {

// pi-fusion-walk, beside the pi-fusion executable of this library (LocatePiFusion's two places,
// never PATH or the environment), which jails the walkers; "" when there is none (the walkers
// then run as before, and the child says so once).
std::string WalkHelper() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&WalkHelper), &info) == 0 || !info.dli_fname) return "";
  Result<std::string> pi_fusion = LocatePiFusion(info.dli_fname);
  if (!pi_fusion.ok()) return "";
  const std::string helper =
      (std::filesystem::path(*pi_fusion).parent_path() / "pi-fusion-walk").string();
  return IsExecutableFile(helper) ? helper : "";
}

// Records which protections held for a walk in its journal record, and says once per task when
// the kernel granted neither (docs/security.md). Only for the registration `generation`: a walk
// of an earlier task of a pooled child reaches nothing of the live one.
void OnWalk(Napi::Env env, uint64_t generation, const std::string& call_id,
            const std::string& protection) {
  ChildState& live = State(env);
  if (live.generation != generation || !live.governor || !live.governor->journal()) return;
  live.governor->journal()->Annotate(call_id, {.walk_protection = protection});
  if (protection != "none" || live.walk_unprotected_said) return;
  live.walk_unprotected_said = true;
  (void)live.env->WriteStderrLine(
      "pi-fusion child: grep and find walk without a mount namespace or Landlock here (the "
      "kernel or container refused both, or pi-fusion-walk is missing); only the per-path checks "
      "hold (docs/security.md)\n");
}

// A tool-using candidate's read, grep, find and ls: Pi's tools behind the FileWall. `pi_tools` is
// what extensions/fusion-child.ts hands over from Pi's package; without it the child must not
// start, since Pi's own tools would then run unwalled.
void RegisterWalledFileTools(Napi::Env env, Napi::Object pi, Napi::Value pi_tools,
                             const ChildConfig& config, uint64_t generation) {
  if (!pi_tools.IsObject()) {
    throw Napi::TypeError::New(env,
                               "pi-fusion child: register(pi, piTools) needs Pi's tool "
                               "factories for a candidate with file tools");
  }
  const std::string cwd = std::filesystem::current_path().string();
  Result<std::shared_ptr<const FileWall>> wall = FileWall::Open(cwd, config.wall_places);
  if (!wall.ok()) {
    Napi::Error error = Napi::Error::New(env, "pi-fusion child: " + wall.status().message());
    error.Set("code", wall.status().code());
    throw error;
  }
  FileToolsSetup setup;
  setup.wall = std::move(wall).value();
  setup.tools = config.tools;
  const char* home = std::getenv("HOME");
  setup.home = home ? home : "";
  setup.agent_dir = config.pi_agent_dir;
  setup.on_refusal = [env, generation](const std::string& call_id, const std::string& code) {
    ChildState& live = State(env);
    if (live.generation == generation && live.governor && live.governor->journal()) {
      live.governor->journal()->Annotate(call_id, {.error_code = code});
    }
  };
  setup.walk_helper = WalkHelper();
  setup.on_walk = [env, generation](const std::string& call_id, const std::string& protection) {
    OnWalk(env, generation, call_id, protection);
  };
  RegisterFileTools(env, pi, pi_tools.As<Napi::Object>(), std::move(setup));
}

[[noreturn]] void ThrowStatus(Napi::Env env, const Status& status, const std::string& prefix = "") {
  Napi::Error error = Napi::Error::New(env, prefix + status.message());
  error.Set("code", status.code());
  throw error;
}

// Reads the configuration through `lookup`, builds a fresh governor on it and installs the
// handlers and tools of a new registration.
void Install(Napi::Env env, Napi::Object pi, Napi::Value pi_tools, const EnvLookup& lookup) {
  ChildState& state = State(env);
  Result<ChildConfig> config = ReadChildConfig(lookup);
  if (!config.ok()) ThrowStatus(env, config.status());
  // A governed child ends with its host, and takes its tools' processes along.
  ArmOrphanGuard();
  // Research candidates, and a research evaluator given their tools (policy.evaluator_tools),
  // only: the parent names the run's source policy in their environment.
  Result<std::shared_ptr<WebFetchTool>> fetch_tool =
      LoadWebFetchTool(PosixFileSystem(), lookup, std::filesystem::current_path().string());
  const bool may_fetch =
      std::ranges::find(config->tools, "fusion_web_fetch") != config->tools.end() &&
      (config->role == Role::kCandidate || config->role == Role::kEvaluator);
  if (fetch_tool.ok() && *fetch_tool && !may_fetch) {
    fetch_tool = Status::Error(kConfigInvalid,
                               "pi-fusion child: only research candidates and a research evaluator "
                               "with tools get fusion_web_fetch");
  }
  if (!fetch_tool.ok()) ThrowStatus(env, fetch_tool.status());
  if (!config->tools.empty()) {
    config->wall_places =
        ResolveWallPlaces(lookup, PosixFileSystem(), std::filesystem::current_path().string(),
                          config->pi_agent_dir, config->wall_places.home);
  }
  if (state.request_signal_taken) config->request_signal_fd = -1;
  state.request_signal_taken = true;
  state.env = NewPosixChildEnv();
  auto governor = std::make_unique<ChildGovernor>(std::move(config).value(), state.env.get());
  if (Status opened = governor->OpenJournal(); !opened.ok()) {
    ThrowStatus(env, opened, "pi-fusion child: cannot create the tool-call journal: ");
  }
  state.governor = std::move(governor);
  state.progress = std::make_unique<ProgressBeat>(state.env.get());
  state.pi = Napi::Persistent(pi);
  state.generation += 1;
  const uint64_t generation = state.generation;
  RegisterHandlers(env, pi, generation);
  if (!state.governor->config().tools.empty()) {
    RegisterWalledFileTools(env, pi, pi_tools, state.governor->config(), generation);
  }
  if (*fetch_tool) {
    // Each fetch's provenance goes into its journal record (the call ends after this hook).
    RegisterWebFetchTool(
        env, pi, *fetch_tool,
        [env, generation](const std::string& call_id, const WebFetchOutcome& outcome) {
          ChildState& live = State(env);
          if (live.generation == generation && live.governor && live.governor->journal()) {
            live.governor->journal()->Annotate(call_id, ProvenanceOf(outcome.audit));
          }
        });
  }
}

// A pooled child's registration (docs/protocol.md, "Pooled children"). The first, at Pi's start,
// has no task: it only refuses. Each later one (the parent's new_session) ends everything of the
// previous task first, then takes its configuration from the next task record alone.
void RegisterPooled(Napi::Env env, Napi::Object pi, Napi::Value pi_tools, int task_fd) {
  ChildState& state = State(env);
  if (!state.task_reader) {
    state.task_reader.emplace(task_fd);
    // The task pipe is this process's alone: the processes Pi starts for tools (ripgrep, fd, the
    // fetcher) must not inherit it and could otherwise read a later task's record.
    NewPosixChildEnv()->KeepSignalPrivate(task_fd);
    ArmOrphanGuard();
    state.pi = Napi::Persistent(pi);
    state.generation += 1;
    RegisterHandlers(env, pi, state.generation);
    return;
  }
  // The previous task's handlers and tool callbacks go inert, its threads end, its state goes.
  state.generation += 1;
  state.threads.CancelAndJoin();
  state.task.reset();
  state.progress.reset();
  state.governor.reset();
  state.walk_unprotected_said = false;
  Result<std::string> line = state.task_reader->ReadLine();
  if (!line.ok()) ThrowStatus(env, line.status());
  Result<pooled_task::Task> task = pooled_task::ParseRecord(*line);
  if (!task.ok()) ThrowStatus(env, task.status());
  PooledTask live;
  live.task_id = task->task_id;
  Install(env, pi, pi_tools, TaskEnvLookup(std::move(task).value(), ProcessEnvLookup()));
  live.tools = state.governor->config().tools;
  // From here the handlers see the task; it starts at the session's session_start.
  state.task = std::move(live);
}

// The configuration is read at registration, so a child launched without its private
// environment fails to load loudly instead of running ungoverned.
Napi::Value Register(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsObject()) {
    throw Napi::TypeError::New(env, "pi-fusion child: register(pi) needs Pi's extension API");
  }
  Napi::Object pi = info[0].As<Napi::Object>();
  ChildState& state = State(env);
  if (!state.pi.IsEmpty() && state.pi.Value().StrictEquals(pi)) return env.Undefined();
  const Napi::Value pi_tools = info.Length() > 1 ? info[1] : env.Undefined();
  if (std::optional<std::string> fd = ProcessEnvLookup()(env_vars::kTaskFd)) {
    Result<int> task_fd = TaskDescriptor(*fd);
    if (!task_fd.ok()) ThrowStatus(env, task_fd.status());
    RegisterPooled(env, pi, pi_tools, *task_fd);
    return env.Undefined();
  }
  Install(env, pi, pi_tools, ProcessEnvLookup());
  return env.Undefined();
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // Freed by Node when the environment is torn down (the default finalizer deletes it).
  auto* state = new ChildState();
  state->dispatcher = std::make_unique<napi_util::JsDispatcher>(env);
  env.SetInstanceData(state);
  exports.Set("register", Napi::Function::New(env, Register, "register"));
  return exports;
}

}  // namespace pi_fusion::child

// NODE_API_MODULE pastes its second argument into an identifier: it must be unqualified.
static Napi::Object PiFusionChildInit(Napi::Env env, Napi::Object exports) {
  return pi_fusion::child::Init(env, exports);
}
NODE_API_MODULE(pi_fusion_child, PiFusionChildInit)
