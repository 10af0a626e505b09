// RunLifecycle through fake seams: scripted children (real frames, verified by the real protocol
// checks), the fault-injecting FileSystem over a real temp directory, and a recording sink.
#include "tasks/run_lifecycle.h"

#include <signal.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>

#include "fault_file_system.h"
#include "schema/normalize.h"
#include "store/constants.h"
#include "store/verify.h"
#include "test_streams.h"
#include "test_support.h"
#include "workflow/stage_prompts.h"

using namespace pi_fusion;
using namespace std::chrono_literals;
using store::testing::FaultFileSystem;
using store::testing::FsOp;
using store::testing::TempDir;

namespace {

// How each scripted child behaves, by role and candidate number (in start order).
struct Script {
  std::function<std::string(int candidate)> candidate = [](int) { return "four"; };
  std::string evaluator = workflow::EvaluationTemplate();
  std::string merger = "The answer is four.";
  int failing_candidate = 0;  // 1..3: that candidate exits 1 at once
  bool block_others = false;  // the other candidates wait until cancelled
};

class ScriptedLauncher : public workflow::ChildLauncher {
 public:
  explicit ScriptedLauncher(Script script) : script_(std::move(script)) {}

  Result<process::ChildOutcome> Run(const process::ChildSpec& spec,
                                    const process::CancelToken& cancel) override {
    if (cancel.IsCancelled()) return Status::Error("child_cancelled", "cancelled before start");
    const std::string role = RoleOf(spec);
    int number = 0;
    {
      std::lock_guard lock(mu_);
      started_.push_back(role);
      if (role == "candidate") number = ++candidates_;
    }
    process::ChildOutcome outcome;
    outcome.pid = 1000 + static_cast<int>(started_.size());
    if (role == "candidate" && number == script_.failing_candidate) {
      outcome.exit_code = 1;
      outcome.stdout_bytes = "partial";
      return outcome;
    }
    if (role == "candidate" && script_.block_others) {
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
    b.Add(pi_fusion::testing::StreamBuilder::Record(1, "stop", {answer},
                                                    pi_fusion::testing::Usage(10, 2)));
    b.Seal();
    outcome.exit_code = 0;
    outcome.stdout_bytes = answer + "\n";
    outcome.stderr_bytes = b.stderr_bytes;
    return outcome;
  }

  std::vector<std::string> started() const {
    std::lock_guard lock(mu_);
    return started_;
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
  int candidates_ = 0;
};

struct RecordingSink : tasks::LifecycleSink {
  void Launched(const tasks::LaunchReport& report) override {
    launch = report;
    launched = true;
  }
  void Progress(const std::string& line) override {
    std::lock_guard lock(mu);
    lines.push_back(line);
  }
  void Ended(const tasks::TerminalReport& report) override { terminal = report; }

  std::atomic<bool> launched{false};
  tasks::LaunchReport launch;
  std::optional<tasks::TerminalReport> terminal;
  std::mutex mu;
  std::vector<std::string> lines;
};

workflow::RunRequest MakeRequest(const std::string& cwd) {
  workflow::RunRequest request;
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
  request.request = *schema::NormalizeFusionCall("fusion_reason", {{"prompt", "What is 2 + 2?"}});
  return request;
}

struct Harness {
  explicit Harness(Script script = {}) : launcher(std::move(script)) {
    seams.fs = &fs;
    seams.clock = &clock;
    seams.children = &launcher;
    cancel = *process::CancelToken::Create();
  }
  void Run() { tasks::RunLifecycle(MakeRequest(dir.path()), seams, registry, cancel, sink); }
  store::Manifest DiskManifest() const {
    auto m = store::ReadManifest(PosixFileSystem(), sink.launch.artifact_dir);
    REQUIRE(m.ok());
    return *m;
  }

  TempDir dir;
  store::testing::FixedClock clock;
  FaultFileSystem fs;
  ScriptedLauncher launcher;
  workflow::RunSeams seams;
  tasks::TaskRegistry registry;
  process::CancelToken cancel;
  RecordingSink sink;
};

}  // namespace

TEST_CASE("RunLifecycle: a clean run commits a verified answer, the receipt coming first",
          "[tasks][lifecycle]") {
  Harness h;
  h.Run();
  REQUIRE(h.sink.launch.ok);
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == workflow::RunEnd::kCompleted);
  CHECK(h.launcher.started() ==
        std::vector<std::string>{"candidate", "candidate", "candidate", "evaluator", "merger"});
  auto verified = store::VerifyCompletedRun(PosixFileSystem(), h.sink.launch.artifact_dir,
                                            h.sink.launch.run_id);
  REQUIRE(verified.ok());
  CHECK(verified->merged == "The answer is four.");
  auto task = h.registry.Resolve(h.sink.launch.run_id);
  REQUIRE(task.ok());
  CHECK(task->state == tasks::TaskState::kCompleted);
  CHECK(task->description == "What is 2 + 2?");
}

TEST_CASE("RunLifecycle: a failing candidate cancels its siblings at once (fail fast)",
          "[tasks][lifecycle]") {
  Script script;
  script.failing_candidate = 2;
  script.block_others = true;  // without fail fast the run would never end
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == workflow::RunEnd::kFailed);
  const store::Manifest m = h.DiskManifest();
  CHECK(m.state == store::RunState::kFailed);
  REQUIRE(m.error.has_value());
  CHECK(m.error->code == "child_exit_failed");
  int cancelled = 0, failed = 0;
  for (const auto& a : m.attempts) {
    cancelled += a.state == store::AttemptState::kCancelled;
    failed += a.state == store::AttemptState::kFailed;
  }
  CHECK(cancelled == 2);
  CHECK(failed == 1);
}

TEST_CASE("RunLifecycle: an empty merger answer is a typed failure, never an empty merged.md",
          "[tasks][lifecycle]") {
  Script script;
  script.merger = " \n ";
  Harness h(script);
  h.Run();
  REQUIRE(h.sink.terminal.has_value());
  CHECK(h.sink.terminal->outcome.end == workflow::RunEnd::kFailed);
  CHECK(h.sink.terminal->outcome.error.code() == "child_event_invalid");
  CHECK_FALSE(store::testing::Exists(h.sink.launch.artifact_dir + "/" + store::kMergedFile));
}

TEST_CASE("RunLifecycle: cancelled during preflight, the run ends cancelled with no child",
          "[tasks][lifecycle]") {
  Harness h;
  h.cancel.Cancel();  // the session ended while preflight worked
  h.Run();
  CHECK_FALSE(h.sink.launch.ok);
  CHECK(h.sink.launch.error.code() == "child_cancelled");
  CHECK(h.launcher.started().empty());
  CHECK(h.DiskManifest().state == store::RunState::kCancelled);
}

TEST_CASE("RunLifecycle: a full disk at any write of preflight is reported as itself",
          "[tasks][lifecycle]") {
  for (int skip = 0; skip < 40; ++skip) {
    Harness h;
    h.fs.FailOn(FsOp::kAppend, ENOSPC, "", skip);
    h.Run();
    if (h.sink.launch.ok) break;  // past preflight: every preflight write was covered
    INFO("failing append #" << skip);
    CHECK(h.sink.launch.error.code() == "artifact_error");
    CHECK_THAT(h.sink.launch.error.message(), Catch::Contains("No space left on device"));
    CHECK(h.launcher.started().empty());
    if (h.sink.launch.artifact_dir.empty()) continue;
    // Whatever became durable is legal: a manifest that is either absent, or terminal failed.
    auto m = store::ReadManifest(PosixFileSystem(), h.sink.launch.artifact_dir);
    if (m.ok()) CHECK(m->state == store::RunState::kFailed);
  }
}
