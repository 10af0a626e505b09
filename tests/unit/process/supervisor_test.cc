// The real supervisor against real misbehaving children, with millisecond limits.
#include <signal.h>

#include <catch2/catch.hpp>
#include <thread>

#include "process/supervisor.h"
#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::Misbehave;
using testing::MustRun;
using testing::OpenFds;
using testing::RelaxedLimits;

std::string BinaryPayload(size_t size) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 131 + 7) % 256);
  return s;
}

TEST_CASE("Supervisor: echoes binary stdin to stdout and exits 0") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"echo"});
  spec.stdin_data = BinaryPayload(300 * 1024);
  ChildOutcome out = MustRun(spec);
  CHECK(out.exit_code == 0);
  CHECK_FALSE(out.term_signal.has_value());
  CHECK(out.stdout_bytes == spec.stdin_data);
  CHECK(out.stdin_bytes_written == spec.stdin_data.size());
  CHECK(out.stop_reason == StopReason::kNone);
  CHECK(OutcomeStatus(out).ok());
  CHECK(out.ended_at >= out.started_at);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: a child flooding stdout before reading stdin does not deadlock") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"no-read-flood", std::to_string(2 << 20)});
  spec.stdin_data = std::string(1 << 20, 'p');
  ChildOutcome out = MustRun(spec);
  CHECK(out.exit_code == 0);
  CHECK(out.stdout_bytes.size() == size_t{2} << 20);
  CHECK(out.stderr_bytes == "read 1048576\n");
  CHECK(OutcomeStatus(out).ok());
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: a non-zero exit is recorded and maps to child_exit_failed") {
  const auto fds = OpenFds();
  ChildOutcome out = MustRun(Misbehave({"exit", "3"}));
  CHECK(out.exit_code == 3);
  CHECK(out.stdout_bytes == "bye\n");
  CHECK(out.stderr_bytes == "bye\n");
  CHECK(out.status.ok());
  CHECK(OutcomeStatus(out).code() == "child_exit_failed");
  CHECK(OutcomeStatus(out).message() == "child exited with code 3");
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: death by a signal is recorded and maps to child_exit_failed") {
  const auto fds = OpenFds();
  ChildOutcome out = MustRun(Misbehave({"signal", std::to_string(SIGUSR1)}));
  CHECK_FALSE(out.exit_code.has_value());
  CHECK(out.term_signal == SIGUSR1);
  CHECK(OutcomeStatus(out).code() == "child_exit_failed");
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: stdout past its cap stops the child with child_output_cap") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.stdout_cap = 1 << 20;
  ChildOutcome out = MustRun(Misbehave({"flood-stdout"}, limits));
  CHECK(out.status.code() == "child_output_cap");
  CHECK(out.stop_reason == StopReason::kStdoutCap);
  CHECK(out.stdout_truncated);
  CHECK(out.stdout_bytes.size() == limits.stdout_cap);  // kept as partial evidence
  CHECK(out.term_signal == SIGTERM);
  CHECK(OutcomeStatus(out).code() == "child_output_cap");
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: stderr past its cap stops the child with child_output_cap") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.stderr_cap = 256 * 1024;
  ChildOutcome out = MustRun(Misbehave({"flood-stderr"}, limits));
  CHECK(out.status.code() == "child_output_cap");
  CHECK(out.stop_reason == StopReason::kStderrCap);
  CHECK(out.stderr_truncated);
  CHECK_FALSE(out.stdout_truncated);
  CHECK(out.stderr_bytes.size() == limits.stderr_cap);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: output exactly at the cap is kept whole; one byte more is a cap") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"echo"});
  spec.stdin_data = std::string(1000, 'e');
  spec.limits.stdout_cap = 1000;
  ChildOutcome exact = MustRun(spec);
  CHECK(exact.status.ok());
  CHECK_FALSE(exact.stdout_truncated);
  CHECK(exact.stdout_bytes.size() == 1000);
  spec.limits.stdout_cap = 999;
  ChildOutcome over = MustRun(spec);
  CHECK(over.status.code() == "child_output_cap");
  CHECK(over.stdout_bytes.size() == 999);
  CHECK_CHILD_CLEAN(over, fds);
}

TEST_CASE("Supervisor: the idle watchdog stops a silent child with child_timeout") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.idle = 300ms;
  ChildOutcome out = MustRun(Misbehave({"silent"}, limits));
  CHECK(out.status.code() == "child_timeout");
  CHECK(out.stop_reason == StopReason::kIdleLimit);
  CHECK_THAT(out.status.message(), Catch::Contains("idle limit"));
  CHECK(out.term_signal == SIGTERM);
  CHECK(out.duration >= 300ms);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE(
    "Supervisor: before its first byte a child gets the start-up floor, then the idle limit") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.idle = 200ms;
  limits.idle_before_output = 1200ms;
  // Silent from the start: stopped by the floor, not by the 200 ms limit.
  ChildOutcome silent = MustRun(Misbehave({"silent"}, limits));
  CHECK(silent.stop_reason == StopReason::kIdleLimit);
  CHECK(silent.idle_before_output);
  CHECK_THAT(silent.status.message(), Catch::Contains("for 1200 ms (idle limit)"));
  CHECK(silent.duration >= 1200ms);
  CHECK_CHILD_CLEAN(silent, fds);
  // Once it wrote ("ready"), 200 ms of silence is enough.
  limits.idle_before_output = 20s;
  limits.term_grace = 100ms;
  ChildOutcome written = MustRun(Misbehave({"ignore-term"}, limits));
  CHECK(written.stdout_bytes == "ready\n");
  CHECK(written.stop_reason == StopReason::kIdleLimit);
  CHECK_FALSE(written.idle_before_output);
  CHECK_THAT(written.status.message(), Catch::Contains("for 200 ms (idle limit)"));
  CHECK(written.duration < 10s);
  CHECK_CHILD_CLEAN(written, fds);
}

TEST_CASE("Supervisor: the wall limit stops a child that keeps writing with child_timeout") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.wall = 500ms;
  ChildOutcome out = MustRun(Misbehave({"trickle", "20"}, limits));
  CHECK(out.status.code() == "child_timeout");
  CHECK(out.stop_reason == StopReason::kWallLimit);
  CHECK_THAT(out.status.message(), Catch::Contains("wall limit of 500 ms"));
  CHECK_FALSE(out.stdout_bytes.empty());
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: a child that ignores SIGTERM is killed after the grace period") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.idle = 300ms;  // counted from its "ready", so SIGTERM arrives after SIG_IGN is set
  limits.term_grace = 300ms;
  ChildOutcome out = MustRun(Misbehave({"ignore-term"}, limits));
  CHECK(out.stdout_bytes == "ready\n");
  CHECK(out.status.code() == "child_timeout");
  CHECK(out.term_signal == SIGKILL);
  CHECK(out.duration >= 600ms);
  CHECK(out.cleanup_errors.empty());
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: a grandchild holding the pipes after the leader exits is killed") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.term_grace = 200ms;
  ChildOutcome out = MustRun(Misbehave({"grandchild", "stubborn"}, limits));
  CHECK(out.exit_code == 0);
  CHECK(out.group_outlived_leader);
  CHECK(out.stop_reason == StopReason::kNone);
  CHECK(out.cleanup_errors.empty());
  const pid_t gc = testing::GrandchildPid(out.stdout_bytes);
  REQUIRE(gc > 0);
  CHECK_CHILD_CLEAN(out, fds);
  CHECK_FALSE(testing::AliveNotZombie(gc));
}

TEST_CASE("Supervisor: pipes held outside the group are abandoned after the kill wait") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.term_grace = 100ms;
  limits.kill_wait = 300ms;
  ChildOutcome out = MustRun(Misbehave({"escape"}, limits));
  const pid_t gc = testing::GrandchildPid(out.stdout_bytes);
  REQUIRE(gc > 0);
  kill(gc, SIGKILL);  // it left our group on purpose; the test cleans it up
  CHECK(out.exit_code == 0);
  CHECK(out.group_outlived_leader);
  REQUIRE(out.cleanup_errors.size() == 1);
  CHECK_THAT(out.cleanup_errors[0], Catch::Contains("still open"));
  Status verdict = OutcomeStatus(out);
  CHECK(verdict.code() == "child_exit_failed");
  CHECK_THAT(verdict.message(), Catch::Contains("cleanup failed"));
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: cancelling from another thread stops the child with child_cancelled") {
  const auto fds = OpenFds();
  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  const auto fds_with_token = OpenFds();
  std::thread canceller([t = token.value()] {
    std::this_thread::sleep_for(200ms);
    t.Cancel();
  });
  ChildOutcome out = MustRun(Misbehave({"silent"}), token.value());
  canceller.join();
  CHECK(out.status.code() == "child_cancelled");
  CHECK(out.stop_reason == StopReason::kCancelled);
  CHECK(out.term_signal == SIGTERM);
  CHECK_CHILD_CLEAN(out, fds_with_token);
  token = Status::Error("x", "drop the token");
  CHECK(OpenFds() == fds);
}

TEST_CASE("Supervisor: cancelling a SIGTERM-ignoring child ends in SIGKILL") {
  const auto fds = OpenFds();
  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  const auto fds_with_token = OpenFds();
  const CancelToken& t = token.value();
  ChildOutcome out = MustRun(Misbehave({"ignore-term"}), t, [&t](const ChildProgress& p) {
    if (p.stdout_size > 0) t.Cancel();  // "ready": SIG_IGN is in place
  });
  CHECK(out.status.code() == "child_cancelled");
  CHECK(out.term_signal == SIGKILL);
  CHECK_CHILD_CLEAN(out, fds_with_token);
}

TEST_CASE("Supervisor: a token cancelled before the run starts spawns nothing") {
  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  token.value().Cancel();
  Result<ChildOutcome> r = RunChild(Misbehave({"echo"}), token.value());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_cancelled");
}

TEST_CASE("Supervisor: EPIPE from a child that closed stdin is child_stdin_failed") {
  // The test binary keeps SIGPIPE's default action: reaching the end proves it never fired.
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"close-stdin-exit"});
  spec.stdin_data = std::string(1 << 20, 's');
  ChildOutcome out = MustRun(spec);
  CHECK(out.status.code() == "child_stdin_failed");
  CHECK(out.stop_reason == StopReason::kStdinFailed);
  CHECK(out.stdin_bytes_written < spec.stdin_data.size());
  // It exits by itself, unless our SIGTERM (sent on EPIPE) arrives first.
  CHECK((out.exit_code == 0 || out.term_signal == SIGTERM));
  CHECK(OutcomeStatus(out).code() == "child_stdin_failed");
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: EPIPE while the child lives on is reported and the child stopped") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"close-stdin-stay"});
  spec.stdin_data = std::string(1 << 20, 's');  // more than a pipe holds: a write must fail
  ChildOutcome out = MustRun(spec);
  CHECK(out.status.code() == "child_stdin_failed");
  CHECK_THAT(out.status.message(), Catch::Contains("Broken pipe"));
  CHECK(out.term_signal == SIGTERM);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: spawn failures are child_spawn_failed and leak nothing") {
  const auto fds = OpenFds();
  ChildSpec missing = Misbehave({"echo"});
  missing.argv[0] = "/nonexistent/pi-fusion-no-such-binary";
  Result<ChildOutcome> r = RunChild(missing);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_spawn_failed");
  CHECK_THAT(r.status().message(), Catch::Contains("No such file or directory"));

  ChildSpec bad_cwd = Misbehave({"echo"});
  bad_cwd.cwd = "/nonexistent/dir";
  r = RunChild(bad_cwd);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_spawn_failed");

  ChildSpec empty;
  r = RunChild(empty);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_spawn_failed");
  CHECK(OpenFds() == fds);
}

TEST_CASE("Supervisor: argv[0] is a path unless PATH lookup is asked for") {
  const auto fds = OpenFds();
  ChildSpec spec;
  spec.argv = {"sh", "-c", "echo found"};
  spec.limits = RelaxedLimits();
  Result<ChildOutcome> r = RunChild(spec);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == "child_spawn_failed");
  spec.search_path = true;
  ChildOutcome out = MustRun(spec);
  CHECK(out.stdout_bytes == "found\n");
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: the child gets exactly the given cwd and environment") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"pwd-env", "ONLY_VAR", "HOME"});
  spec.cwd = "/tmp";
  spec.env = {"ONLY_VAR=yes"};
  ChildOutcome out = MustRun(spec);
  CHECK(out.stdout_bytes == "/tmp\nONLY_VAR=yes\nHOME unset\n");
  ChildSpec count = Misbehave({"env-count"});
  count.env = {};
  ChildOutcome empty_env = MustRun(count);
  CHECK(empty_env.stdout_bytes == "0\n");
  CHECK_CHILD_CLEAN(empty_env, fds);
}

TEST_CASE("Supervisor: the child inherits no descriptor beyond its stdio") {
  Result<CancelToken> token = CancelToken::Create();  // an eventfd that must not leak either
  REQUIRE(token.ok());
  const auto fds = OpenFds();
  // A second child running meanwhile has pipes open in this process.
  // Its outcome is not this test's concern: it only has to be running meanwhile.
  std::thread other([] { (void)RunChild(Misbehave({"sleep", "300"})); });
  std::this_thread::sleep_for(50ms);
  ChildOutcome out = MustRun(Misbehave({"fds"}), token.value());
  other.join();
  CHECK(out.stdout_bytes == "fds:\n");
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: the child starts with default signal dispositions and an empty mask") {
  struct sigaction ignore = {}, old_action = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old_action);  // as Node does
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &block, &old_mask);
  Result<ChildOutcome> r = RunChild(Misbehave({"sigstate"}));
  pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGPIPE, &old_action, nullptr);
  REQUIRE(r.ok());
  CHECK(r.value().stdout_bytes == "pipe=default mask=empty\n");
}

TEST_CASE("Supervisor: progress reports the spawn, then captured output") {
  ChildSpec spec = Misbehave({"echo"});
  spec.stdin_data = "hello";
  std::vector<ChildProgress> seen;
  ChildOutcome out =
      MustRun(spec, CancelToken(), [&](const ChildProgress& p) { seen.push_back(p); });
  REQUIRE(seen.size() >= 2);
  CHECK(seen.front().event == ChildProgress::Event::kSpawned);
  CHECK(seen.front().pid == out.pid);
  CHECK(seen.back().event == ChildProgress::Event::kOutput);
  CHECK(seen.back().stdout_size == 5);
}

}  // namespace
}  // namespace pi_fusion::process
