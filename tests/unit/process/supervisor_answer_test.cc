// Ending at the answer: the supervisor tells its caller when the child's answer is complete, then
// gives the child limits.after_answer to exit by itself before stopping it, and still reaps it.
#include <signal.h>

#include <catch2/catch.hpp>
#include <mutex>

#include "process/supervisor.h"
#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::Misbehave;
using testing::MustRun;
using testing::OpenFds;
using testing::RelaxedLimits;

// What on_answer saw, and whether the child was still alive then.
struct AnswerSeen {
  std::mutex mu;
  int calls = 0;
  std::string stdout_bytes;
  bool alive = false;
};

ChildSpec WithAnswerHooks(ChildSpec spec, AnswerSeen* seen) {
  spec.answer_complete = [](const std::string& out, const std::string&) {
    return out == "answer\n";
  };
  spec.on_answer = [seen](const ChildOutcome& at_answer) {
    std::lock_guard lock(seen->mu);
    ++seen->calls;
    seen->stdout_bytes = at_answer.stdout_bytes;
    seen->alive = testing::AliveNotZombie(at_answer.pid);
  };
  return spec;
}

TEST_CASE("Supervisor: a child that lingers after its answer is stopped after_answer later") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.after_answer = 300ms;
  AnswerSeen seen;
  // Answers, then would sleep for 30 s before exiting.
  ChildOutcome out =
      MustRun(WithAnswerHooks(Misbehave({"answer-then-exit", "30000", "0"}, limits), &seen));
  CHECK(seen.calls == 1);
  CHECK(seen.stdout_bytes == "answer\n");
  CHECK(seen.alive);
  CHECK(out.answer_at.has_value());
  CHECK(out.stop_reason == StopReason::kAfterAnswer);
  CHECK(out.status.ok());  // lingering is not an error of the supervisor's
  CHECK(out.stopped_after_answer);
  CHECK(out.term_signal == SIGTERM);
  CHECK(out.duration >= 300ms);
  CHECK(out.duration < 10s);
  CHECK(out.cleanup_errors.empty());
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: a child that exits soon after its answer keeps its own exit status") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.after_answer = 5s;
  AnswerSeen seen;
  ChildOutcome out =
      MustRun(WithAnswerHooks(Misbehave({"answer-then-exit", "200", "3"}, limits), &seen));
  CHECK(seen.calls == 1);
  CHECK(seen.alive);
  CHECK(out.stop_reason == StopReason::kNone);
  CHECK_FALSE(out.stopped_after_answer);
  CHECK(out.exit_code == 3);
  CHECK(out.stdout_bytes == "answer\n");
  CHECK(*out.answer_at <= out.duration);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: without an answer the after_answer limit never fires") {
  const auto fds = OpenFds();
  ChildLimits limits = RelaxedLimits();
  limits.after_answer = 0ms;
  AnswerSeen seen;
  // "bye\n" is not the answer the check waits for.
  ChildOutcome out = MustRun(WithAnswerHooks(Misbehave({"exit", "0"}, limits), &seen));
  CHECK(seen.calls == 0);
  CHECK_FALSE(out.answer_at.has_value());
  CHECK(out.stop_reason == StopReason::kNone);
  CHECK(out.exit_code == 0);
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("Supervisor: a cancel after the answer stops the child as one made after its answer") {
  Result<CancelToken> cancel = CancelToken::Create();
  REQUIRE(cancel.ok());
  const auto fds = OpenFds();  // the token's own descriptor stays open
  ChildLimits limits = RelaxedLimits();
  limits.after_answer = 30s;
  ChildSpec spec = Misbehave({"answer-then-exit", "30000", "0"}, limits);
  spec.answer_complete = [](const std::string& out, const std::string&) {
    return out == "answer\n";
  };
  spec.on_answer = [&](const ChildOutcome&) { cancel->Cancel(); };
  Result<ChildOutcome> r = RunChild(spec, *cancel);
  REQUIRE(r.ok());
  CHECK(r->stop_reason == StopReason::kCancelled);
  CHECK(r->stopped_after_answer);
  CHECK(r->term_signal == SIGTERM);
  CHECK_CHILD_CLEAN(*r, fds);
}

TEST_CASE("Supervisor: the first-output mark is the read that first satisfied its check") {
  // Says nothing for 300 ms, then "slept"; the check wants exactly that line.
  ChildSpec spec = Misbehave({"sleep", "300"}, RelaxedLimits());
  int asked = 0;
  spec.first_output = [&](const std::string& out, const std::string&) {
    ++asked;
    return out == "slept\n";
  };
  ChildOutcome out = MustRun(spec);
  REQUIRE(out.first_output_at.has_value());
  CHECK(*out.first_output_at >= 300ms);
  CHECK(*out.first_output_at <= out.duration);
  CHECK(asked >= 1);
  // Never satisfied, or no check at all: no mark.
  spec.first_output = [](const std::string&, const std::string&) { return false; };
  CHECK_FALSE(MustRun(spec).first_output_at.has_value());
  spec.first_output = nullptr;
  CHECK_FALSE(MustRun(spec).first_output_at.has_value());
}

}  // namespace
}  // namespace pi_fusion::process
