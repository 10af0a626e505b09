// PooledChild against a scripted RPC peer (rpc_peer.cc): tasks in a row on one process, setup
// failures (the process is then gone and the task never began), every stop with ChildRun's
// status, the child dying mid-task, protocol anomalies. Every case ends with no process left.
#include "process/pooled_child.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "core/error_codes.h"
#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::GroupGone;
using testing::OpenFds;
using testing::Reaped;

const std::string kTaskA = "0123456789abcdef0123456789abcdef";
const std::string kTaskB = "fedcba9876543210fedcba9876543210";

ChildSpec PeerSpec(const std::string& session_mode = "") {
  ChildSpec spec;
  spec.argv = {PI_FUSION_RPC_PEER_PATH, "--mode", "rpc"};
  if (!session_mode.empty()) spec.argv.push_back(session_mode);
  spec.env = {"PATH=/usr/bin:/bin"};
  return spec;
}

std::unique_ptr<PooledChild> MustStart(const std::string& session_mode = "") {
  Result<std::unique_ptr<PooledChild>> child = PooledChild::StartPosix(PeerSpec(session_mode));
  INFO((child.ok() ? std::string("ok") : child.status().ToString()));
  REQUIRE(child.ok());
  return std::move(child).value();
}

ChildSpec Task(const std::string& prompt, ChildLimits limits = testing::RelaxedLimits()) {
  ChildSpec spec;
  spec.stdin_data = prompt;
  spec.limits = limits;
  return spec;
}

pooled_task::Task Record(const std::string& id, const std::string& role = "candidate") {
  return pooled_task::Task{id, {{"PI_FUSION_CHILD_ROLE", role}}};
}

const TaskRoute kRoute{"fusion-test", "model-a", "low"};

// One task with no cancel, no progress and no request signal.
TaskResult Run(PooledChild& child, const std::string& prompt, const std::string& id = kTaskA) {
  return child.RunTask(Task(prompt), Record(id), kRoute, CancelToken());
}

// The process is gone: no live member of its group, our pid reaped.
bool ProcessGone(pid_t pid) { return GroupGone(pid) && Reaped(pid); }

// Gone, and its owner knows it.
void CheckEnded(PooledChild& child, pid_t pid) {
  CHECK(ProcessGone(pid));
  CHECK(child.EndedOnItsOwn());
}

TEST_CASE("PooledChild: two tasks in a row on one process, each with only its own output") {
  const auto fds = OpenFds();
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  int pipe_fds[2];
  REQUIRE(pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) == 0);

  std::vector<ChildProgress::Event> events;
  std::string answered_stdout;
  ChildSpec first = Task("ok first answer");
  first.answer_complete = [](const std::string& out, const std::string&) { return !out.empty(); };
  first.on_answer = [&](const ChildOutcome& at) { answered_stdout = at.stdout_bytes; };
  TaskResult a = child->RunTask(
      first, Record(kTaskA, "first"), kRoute, CancelToken(),
      [&](const ChildProgress& p) { events.push_back(p.event); }, pipe_fds[1]);
  INFO(a.reason);
  REQUIRE(a.started);
  CHECK(a.reusable);
  CHECK(a.outcome.stop_reason == StopReason::kNone);
  CHECK(a.outcome.exit_code == 0);
  CHECK_FALSE(a.outcome.term_signal.has_value());
  CHECK(OutcomeStatus(a.outcome).ok());
  CHECK(a.outcome.pid == pid);
  // Text mode's print: each text block and "\n"; the thinking block is not printed.
  CHECK(a.outcome.stdout_bytes == "first answer\nmore\n");
  CHECK(a.outcome.stderr_bytes ==
        "vars PI_FUSION_CHILD_ROLE=first\n@pi-fusion-frame {\"kind\":\"beat\"}\n"
        "Warning: a diagnostic of Pi\n");
  CHECK(a.outcome.stdin_bytes_written == std::string("ok first answer").size());
  CHECK(answered_stdout == a.outcome.stdout_bytes);
  CHECK(a.outcome.answer_at.has_value());
  REQUIRE_FALSE(events.empty());
  CHECK(events.front() == ChildProgress::Event::kSpawned);
  char byte = 0;
  CHECK(read(pipe_fds[0], &byte, 1) == 1);  // the first-request signal
  CHECK(child->tasks() == 1);
  CHECK_FALSE(child->EndedOnItsOwn());
  // The "no process left" check sees a live one.
  CHECK_FALSE(GroupGone(pid, 100ms));

  TaskResult b = child->RunTask(Task("split-end"), Record(kTaskB, "second"), kRoute, CancelToken());
  INFO(b.reason);
  REQUIRE(b.started);
  CHECK(b.reusable);
  CHECK(b.outcome.exit_code == 0);
  CHECK(b.outcome.stdout_bytes == "\nmore\n");
  CHECK(b.outcome.stderr_bytes ==
        "vars PI_FUSION_CHILD_ROLE=second\n@pi-fusion-frame {\"kind\":\"beat\"}\n"
        "Warning: a diagnostic of Pi\n");
  CHECK(child->tasks() == 2);
  CHECK(child->pid() == pid);

  const std::string how = child->End();
  CHECK(how == "exited with code 0");  // stdin closed: it left by itself
  CHECK(child->End() == how);          // idempotent
  CHECK_FALSE(child->ResidentBytes().has_value());
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  child.reset();
  CHECK(ProcessGone(pid));
  CHECK(OpenFds() == fds);
}

TEST_CASE("PooledChild: exit code 1 and an aborted message end the task like a cold child") {
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  TaskResult one = Run(*child, "exit1 said");
  REQUIRE(one.started);
  CHECK(one.reusable);
  CHECK(one.outcome.exit_code == 1);
  CHECK(one.outcome.stdout_bytes == "said\nmore\n");
  CHECK(OutcomeStatus(one.outcome).code() == kChildExitFailed);
  TaskResult two = Run(*child, "aborted", kTaskB);
  REQUIRE(two.started);
  CHECK(two.reusable);
  CHECK(two.outcome.exit_code == 1);
  CHECK(two.outcome.stdout_bytes.empty());  // nothing is printed after an abort
  child.reset();
  CHECK(ProcessGone(pid));
}

TEST_CASE("PooledChild: a failed setup never starts the task and ends the process") {
  const auto fds = OpenFds();
  struct Case {
    std::string session_mode;
    std::string reason;
  };
  for (const Case& c : {Case{"no-start", "no start line within the setup limit"},
                        Case{"wrong-start", "start line of another task"},
                        Case{"cancel-session", "new_session was cancelled"},
                        Case{"reject-model", "set_model failed: refused by the peer"},
                        Case{"queue-prompt", "the prompt was not started"}}) {
    INFO(c.session_mode);
    std::unique_ptr<PooledChild> child = MustStart(c.session_mode);
    child->set_setup_limit(500ms);
    const pid_t pid = child->pid();
    TaskResult r = Run(*child, "ok never");
    INFO(r.reason);
    CHECK_FALSE(r.started);
    CHECK_FALSE(r.reusable);
    CHECK(r.reason.find(c.reason) != std::string::npos);
    CHECK(r.reason.find('\n') == std::string::npos);
    // Gone before the owner lets go of it.
    CheckEnded(*child, pid);
  }
  CHECK(OpenFds() == fds);
}

TEST_CASE("PooledChild: cancel during the setup never starts the task and ends the process") {
  std::unique_ptr<PooledChild> child = MustStart("no-start");
  const pid_t pid = child->pid();
  Result<CancelToken> made = CancelToken::Create();
  REQUIRE(made.ok());
  const CancelToken& cancel = *made;
  std::thread canceller([&] {
    std::this_thread::sleep_for(200ms);
    cancel.Cancel();
  });
  const auto before = std::chrono::steady_clock::now();
  TaskResult r = child->RunTask(Task("ok never"), Record(kTaskA), kRoute, cancel);
  canceller.join();
  CHECK_FALSE(r.started);
  CHECK(r.reason.find("cancelled during the setup") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - before < 5s);  // not the 10 s setup limit
  CheckEnded(*child, pid);
}

TEST_CASE("PooledChild: a process that died while idle fails the setup") {
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  std::this_thread::sleep_for(100ms);
  REQUIRE(kill(pid, SIGKILL) == 0);
  std::this_thread::sleep_for(100ms);
  TaskResult r = Run(*child, "ok x");
  CHECK_FALSE(r.started);
  CHECK(ProcessGone(pid));
}

// The stops, each compared with ChildRun's outcome for a cold child stopped the same way.
TEST_CASE("PooledChild: every stop has ChildRun's reason and status, and ends the process") {
  const auto fds = OpenFds();
  struct Case {
    const char* prompt;
    const char* cold_mode;  // the misbehave mode ChildRun stops the same way
    ChildLimits limits;
    StopReason reason;
  };
  ChildLimits wall = testing::RelaxedLimits();
  wall.wall = 400ms;
  ChildLimits idle = testing::RelaxedLimits();
  idle.idle = 400ms;
  ChildLimits err_cap = testing::RelaxedLimits();
  err_cap.stderr_cap = 100000;
  ChildLimits out_cap = testing::RelaxedLimits();
  out_cap.stdout_cap = 1000;
  for (const Case& c : {Case{"hang", "silent", wall, StopReason::kWallLimit},
                        Case{"stdout-only", "silent", idle, StopReason::kIdleLimit},
                        Case{"flood", "flood-stderr", err_cap, StopReason::kStderrCap},
                        Case{"big 5000", "flood-stdout", out_cap, StopReason::kStdoutCap}}) {
    INFO(c.prompt);
    std::unique_ptr<PooledChild> child = MustStart();
    const pid_t pid = child->pid();
    TaskResult r = child->RunTask(Task(c.prompt, c.limits), Record(kTaskA), kRoute, CancelToken());
    INFO(r.reason);
    REQUIRE(r.started);
    CHECK_FALSE(r.reusable);
    CHECK(r.outcome.stop_reason == c.reason);
    ChildOutcome cold = testing::MustRun(testing::Misbehave({c.cold_mode}, c.limits));
    CHECK(cold.stop_reason == c.reason);
    CHECK(r.outcome.status.code() == cold.status.code());
    CHECK(r.outcome.status.message() == cold.status.message());
    CHECK(OutcomeStatus(r.outcome).code() == OutcomeStatus(cold).code());
    CHECK(r.outcome.term_signal.has_value());  // stopped by a signal, and reaped
    if (c.reason == StopReason::kStdoutCap) {
      CHECK(r.outcome.stdout_bytes == std::string(1000, 'x'));
      CHECK(r.outcome.stdout_truncated);
    }
    if (c.reason == StopReason::kStderrCap) CHECK(r.outcome.stderr_bytes.size() == 100000);
    CheckEnded(*child, pid);
  }
  CHECK(OpenFds() == fds);
}

TEST_CASE("PooledChild: cancel mid-task stops the process with child_cancelled") {
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  Result<CancelToken> made = CancelToken::Create();
  REQUIRE(made.ok());
  const CancelToken& cancel = *made;
  std::thread canceller([&] {
    std::this_thread::sleep_for(300ms);
    cancel.Cancel();
  });
  TaskResult r = child->RunTask(Task("hang"), Record(kTaskA), kRoute, cancel);
  canceller.join();
  REQUIRE(r.started);
  CHECK_FALSE(r.reusable);
  CHECK(r.outcome.stop_reason == StopReason::kCancelled);
  CHECK(r.outcome.status.code() == kChildCancelled);
  CHECK(r.outcome.stderr_bytes == "vars PI_FUSION_CHILD_ROLE=candidate\nhanging\n");
  CHECK(ProcessGone(pid));
}

TEST_CASE("PooledChild: a child that dies mid-task reads like a cold child that died") {
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  TaskResult r = Run(*child, "die");
  REQUIRE(r.started);
  CHECK_FALSE(r.reusable);
  CHECK(r.outcome.stop_reason == StopReason::kNone);
  CHECK(r.outcome.term_signal == SIGKILL);
  CHECK(r.outcome.stdout_bytes.empty());
  CHECK(r.outcome.stderr_bytes == "vars PI_FUSION_CHILD_ROLE=candidate\nabout to die\n");
  CHECK(OutcomeStatus(r.outcome).code() == kChildExitFailed);
  CheckEnded(*child, pid);
}

TEST_CASE("PooledChild: a child that exits right after its end line ended the task") {
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  TaskResult r = Run(*child, "end-exit bye");
  REQUIRE(r.started);
  CHECK(r.outcome.stop_reason == StopReason::kNone);
  CHECK(r.outcome.exit_code == 0);
  CHECK(r.outcome.stdout_bytes == "bye\nmore\n");
  // Either it was seen to exit with the end line, or it is found gone at the next look.
  if (r.reusable) {
    std::this_thread::sleep_for(100ms);
    CHECK(child->EndedOnItsOwn());
  }
  CHECK(child->tasks() == 1);
  CHECK(ProcessGone(pid));
}

TEST_CASE("PooledChild: a protocol anomaly stops the process with child_event_invalid") {
  for (const char* prompt : {"wrong-end", "second-start", "garbage"}) {
    INFO(prompt);
    std::unique_ptr<PooledChild> child = MustStart();
    const pid_t pid = child->pid();
    TaskResult r = Run(*child, prompt);
    REQUIRE(r.started);
    CHECK_FALSE(r.reusable);
    CHECK(r.outcome.stop_reason == StopReason::kSupervisorError);
    CHECK(r.outcome.status.code() == kChildEventInvalid);
    CHECK(ProcessGone(pid));
  }
}

TEST_CASE("PooledChild: Start refuses a spec it cannot pool") {
  ChildSpec no_rpc = PeerSpec();
  no_rpc.argv = {PI_FUSION_RPC_PEER_PATH, "--mode", "json"};
  ChildSpec per_child = PeerSpec();
  per_child.env.push_back("PI_FUSION_CHILD_ROLE=candidate");
  ChildSpec task_fd = PeerSpec();
  task_fd.env.push_back("PI_FUSION_TASK_FD=3");
  ChildSpec inherits = PeerSpec();
  inherits.inherit_fds = {0};
  for (const ChildSpec& spec : {no_rpc, per_child, task_fd, inherits}) {
    Result<std::unique_ptr<PooledChild>> child = PooledChild::StartPosix(spec);
    REQUIRE_FALSE(child.ok());
    CHECK(child.status().code() == kChildSpawnFailed);
  }
}

TEST_CASE("PooledChild: ResidentBytes reads the process's VmRSS, or the reader it is given") {
  std::unique_ptr<PooledChild> child = MustStart();
  const pid_t pid = child->pid();
  const std::optional<uint64_t> rss = child->ResidentBytes();
  REQUIRE(rss.has_value());
  CHECK(*rss > 0);
  CHECK(PooledChild::ReadProcResidentBytes(pid).has_value());
  CHECK_FALSE(PooledChild::ReadProcResidentBytes(-1).has_value());
  child->set_resident_reader([](pid_t) { return std::optional<uint64_t>(12345); });
  CHECK(child->ResidentBytes() == 12345u);
  child->End();
  CHECK_FALSE(child->ResidentBytes().has_value());
  CHECK(ProcessGone(pid));
}

}  // namespace
}  // namespace pi_fusion::process
