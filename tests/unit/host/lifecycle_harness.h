// Drives RunLifecycle through fake seams: scripted children (real frames, verified by the real
// protocol checks), the fault-injecting FileSystem over a real temp directory, and a recording
// sink. Shared by the lifecycle tests. Test-only.
#pragma once

#include <signal.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "fault_file_system.h"
#include "host/run_lifecycle.h"
#include "schema/normalize.h"
#include "store/verify.h"
#include "test_streams.h"
#include "test_support.h"
#include "workflow/stage_prompts.h"

namespace lifecycle_testing {

using namespace pi_fusion;
using namespace std::chrono_literals;
using store::testing::FaultFileSystem;
using store::testing::TempDir;

// How each scripted child behaves, by role and candidate number (in start order).
struct Script {
  std::function<std::string(int candidate)> candidate = [](int) { return "four"; };
  std::string evaluator = workflow::EvaluationTemplate();
  std::string merger = "The answer is four.";
  int failing_candidate = 0;    // 1..3: that candidate exits 1 at once
  bool failing_merger = false;  // the merger exits 1 at once
  bool block_others = false;    // the other candidates wait until cancelled
  // 1..3: that candidate waits until cancelled, then answers all the same (its answer arrives
  // just as the run stops it).
  int answers_when_cancelled = 0;
};

class ScriptedLauncher : public run::ChildLauncher {
 public:
  explicit ScriptedLauncher(Script script) : script_(std::move(script)) {}

  Result<process::ChildOutcome> Run(const process::ChildSpec& spec,
                                    const process::CancelToken& cancel) override {
    const std::string role = RoleOf(spec);
    // A script whose candidate answers as it is cut starts it even when the cut came first.
    const bool starts_anyway = role == "candidate" && script_.answers_when_cancelled != 0;
    if (cancel.IsCancelled() && !starts_anyway) {
      return Status::Error("child_cancelled", "cancelled before start");
    }
    int number = 0;
    {
      std::lock_guard lock(mu_);
      started_.push_back(role);
      envs_.push_back(spec.env);
      argvs_.push_back(spec.argv);
      if (role == "candidate") number = ++candidates_;
    }
    process::ChildOutcome outcome;
    outcome.pid = 1000 + static_cast<int>(started_.size());
    if (role == "candidate" && number == script_.failing_candidate) {
      outcome.exit_code = 1;
      outcome.stdout_bytes = "partial";
      return outcome;
    }
    if (role == "merger" && script_.failing_merger) {
      outcome.exit_code = 1;
      return outcome;
    }
    if (role == "candidate" && number == script_.answers_when_cancelled) {
      while (!cancel.IsCancelled()) std::this_thread::sleep_for(5ms);
    } else if (role == "candidate" && script_.block_others) {
      while (!cancel.IsCancelled()) std::this_thread::sleep_for(5ms);
      outcome.term_signal = SIGTERM;
      outcome.stop_reason = process::StopReason::kCancelled;
      outcome.status = Status::Error("child_cancelled", "child cancelled");
      return outcome;
    }
    const std::string answer = role == "candidate"   ? script_.candidate(number)
                               : role == "evaluator" ? script_.evaluator
                                                     : script_.merger;
    pi_fusion::testing::StreamBuilder b;
    b.Add(pi_fusion::testing::StreamBuilder::Record(
        1, "stop", {answer}, pi_fusion::testing::Usage(10, 2), RouteOf(spec)));
    b.Seal();
    outcome.exit_code = 0;
    outcome.stdout_bytes = answer + "\n";
    outcome.stderr_bytes = b.stderr_bytes;
    return outcome;
  }

  // The route the child was started on (--provider, --model): its records name it, as Pi's do.
  static protocol::Route RouteOf(const process::ChildSpec& spec) {
    protocol::Route route = pi_fusion::testing::kRoute;
    for (size_t i = 0; i + 1 < spec.argv.size(); ++i) {
      if (spec.argv[i] == "--provider") route.provider = spec.argv[i + 1];
      if (spec.argv[i] == "--model") route.model = spec.argv[i + 1];
    }
    return route;
  }

  // Reports the child's start and one output to its watch, as the supervisor does, then runs it.
  Result<process::ChildOutcome> RunWatched(const process::ChildSpec& spec,
                                           const process::CancelToken& cancel,
                                           const process::ProgressCallback& progress) override {
    if (progress) {
      progress({process::ChildProgress::Event::kSpawned, 1, 0, 0, 0ms});
      progress({process::ChildProgress::Event::kOutput, 1, 0, 10, 5ms});
      std::lock_guard lock(mu_);
      ++watched_;
    }
    return Run(spec, cancel);
  }
  int watched() const {
    std::lock_guard lock(mu_);
    return watched_;
  }

  std::vector<std::string> started() const {
    std::lock_guard lock(mu_);
    return started_;
  }
  // Each started child's environment, in start order.
  std::vector<std::vector<std::string>> envs() const {
    std::lock_guard lock(mu_);
    return envs_;
  }
  // Each started child's argv, in start order.
  std::vector<std::vector<std::string>> argvs() const {
    std::lock_guard lock(mu_);
    return argvs_;
  }

 private:
  static std::string RoleOf(const process::ChildSpec& spec) {
    for (const std::string& e : spec.env) {
      if (e.rfind("PI_FUSION_CHILD_ROLE=", 0) == 0) return e.substr(21);
    }
    return "";
  }

  Script script_;
  mutable std::mutex mu_;
  std::vector<std::string> started_;
  std::vector<std::vector<std::string>> envs_;
  std::vector<std::vector<std::string>> argvs_;
  int candidates_ = 0;
  int watched_ = 0;
};

struct RecordingSink : host::LifecycleSink {
  void Launched(const views::LaunchReport& report) override {
    launch = report;
    launched = true;
  }
  void Progress(const std::string& line) override {
    std::lock_guard lock(mu);
    lines.push_back(line);
  }
  void Ended(const views::TerminalReport& report) override { terminal = report; }
  void CandidateLanded(const views::LandedReport& report) override {
    std::lock_guard lock(mu);
    landed.push_back(report);
  }

  std::atomic<bool> launched{false};
  views::LaunchReport launch;
  std::optional<views::TerminalReport> terminal;
  std::mutex mu;
  std::vector<std::string> lines;
  std::vector<views::LandedReport> landed;
};

inline run::RunRequest MakeRequest(const std::string& cwd,
                                   const std::string& prompt = "What is 2 + 2?") {
  run::RunRequest request;
  config::ModelInfo model;
  model.provider = "scripted";
  model.id = "scripted-a";
  model.api = "openai-completions";
  model.base_url = "http://127.0.0.1:9";
  model.context_window = 128000;
  model.max_tokens = 8192;
  request.host.cwd = cwd;
  request.host.session_id = "session";
  request.host.agent_dir = cwd + "/agent";  // no fusion-models.json: every slot is $current
  request.host.registry.models = {model};
  request.host.registry.current = model;
  request.host.registry.thinking_level = "off";
  request.host.branch = nlohmann::json::array();
  request.host.node_path = "/nonexistent/node";
  request.host.pi_cli_path = "/nonexistent/pi";
  request.host.package_root = cwd;
  request.host.pid = 4242;
  request.request = *schema::NormalizeFusionCall("fusion_reason", {{"prompt", prompt}});
  return request;
}

struct Harness {
  explicit Harness(Script script = {}) : launcher(std::move(script)) {
    seams.fs = &fs;
    seams.clock = &clock;
    seams.children = &launcher;
    cancel = *process::CancelToken::Create();
  }
  void Run() {
    run::RunRequest request = MakeRequest(dir.path(), prompt);
    request.host.environment = host_env;
    for (config::ModelInfo& model : request.host.registry.models) model.prices = prices;
    request.host.registry.current->prices = prices;
    request.resume_run_dir = resume_run_dir;
    if (edit_request) edit_request(request);
    host::RunLifecycle(std::move(request), seams, registry, cancel, sink);
  }
  store::Manifest DiskManifest() const {
    auto m = store::ReadManifest(PosixFileSystem(), sink.launch.artifact_dir);
    REQUIRE(m.ok());
    return *m;
  }

  std::string prompt = "What is 2 + 2?";
  std::optional<config::ModelPrices> prices;  // the route's model.cost; none by default
  std::vector<std::string> host_env;          // the host process's environment, as Pi would pass it
  std::string resume_run_dir;                 // /fusion-resume of that run directory
  std::function<void(run::RunRequest&)> edit_request;  // last changes before the launch
  TempDir dir;
  store::testing::FixedClock clock;
  FaultFileSystem fs;
  ScriptedLauncher launcher;
  run::RunSeams seams;
  tasks::TaskRegistry registry;
  process::CancelToken cancel;
  RecordingSink sink;
};

}  // namespace lifecycle_testing
