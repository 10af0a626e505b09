// bg_kill's wait (host/kill_waits.h): answered by its run's terminal event or by the 30 s cap,
// exactly once, with the registry's state at that moment — never by looking again later.
#include "host/kill_waits.h"

#include <catch2/catch.hpp>

#include <optional>
#include <string>

using namespace pi_fusion;
using namespace pi_fusion::tasks;
using pi_fusion::views::KillAnswer;
using namespace pi_fusion::host;

namespace {

constexpr char kRun[] = "reason-0123456789abcdef0123456789abcdef";
constexpr char kOther[] = "reason-fedcba9876543210fedcba9876543210";

struct Fixture {
  Fixture() {
    for (const char* id : {kRun, kOther}) {
      TaskInfo task;
      task.id = id;
      task.workflow = "reason";
      tasks.Add(task, *process::CancelToken::Create());
    }
  }
  // A wait for kRun whose answers are collected in `answers`.
  uint64_t Wait() {
    return waits.Add(kRun, [this](const KillAnswer& answer) { answers.push_back(answer); });
  }
  TaskRegistry tasks;
  KillWaits waits;
  std::vector<KillAnswer> answers;
};

}  // namespace

TEST_CASE("KillWaits: answered by its own run's end, once, with the recorded terminal text") {
  Fixture f;
  const uint64_t ticket = f.Wait();
  REQUIRE(f.tasks.Kill(kRun).ok());
  f.tasks.Finish(kOther, TaskState::kCompleted, "other done", "");
  f.waits.RunEnded(kOther, f.tasks);  // another run's end answers nothing
  CHECK(f.answers.empty());
  CHECK(f.waits.waiting() == 1);

  f.tasks.Finish(kRun, TaskState::kKilled, "cancelled by bg_kill", "");
  f.waits.RunEnded(kRun, f.tasks);
  REQUIRE(f.answers.size() == 1);
  CHECK(f.answers[0].text == "killed " + std::string(kRun) + "\ncancelled by bg_kill");
  CHECK(f.answers[0].details == nlohmann::json{{"task_id", kRun}, {"state", "killed"}});
  CHECK(f.waits.waiting() == 0);
  // The cap firing afterwards, or a second end, answers nothing more.
  f.waits.Expire(ticket, f.tasks);
  f.waits.RunEnded(kRun, f.tasks);
  CHECK(f.answers.size() == 1);
}

TEST_CASE("KillWaits: the cap answers a run still running, and its later end answers no more") {
  Fixture f;
  const uint64_t ticket = f.Wait();
  REQUIRE(f.tasks.Kill(kRun).ok());
  f.waits.Expire(ticket, f.tasks);
  REQUIRE(f.answers.size() == 1);
  CHECK(f.answers[0].text ==
        "cancellation of " + std::string(kRun) + " requested; it has not settled within 30 s");
  CHECK(f.answers[0].details["state"] == "running");
  f.tasks.Finish(kRun, TaskState::kKilled, "cancelled by bg_kill", "");
  f.waits.RunEnded(kRun, f.tasks);
  CHECK(f.answers.size() == 1);
}

TEST_CASE(
    "KillWaits: every wait for one run is answered by its end; a run that committed says so") {
  Fixture f;
  f.Wait();
  f.Wait();
  f.tasks.Finish(kRun, TaskState::kCompleted, "Fusion reason completed.", "");
  f.waits.RunEnded(kRun, f.tasks);
  REQUIRE(f.answers.size() == 2);
  for (const KillAnswer& answer : f.answers) {
    CHECK(answer.text == std::string(kRun) +
                             " completed before it could be stopped; its answer is committed.\n"
                             "Fusion reason completed.");
  }
}

TEST_CASE("KillWaits: a task the registry no longer knows is answered as not settled") {
  Fixture f;
  bool answered = false;
  f.waits.Add("reason-00000000000000000000000000000000", [&](const KillAnswer& answer) {
    answered = true;
    CHECK(answer.details["state"] == "running");
    CHECK_THAT(answer.text, Catch::EndsWith("it has not settled within 30 s"));
  });
  f.waits.RunEnded("reason-00000000000000000000000000000000", f.tasks);
  CHECK(answered);
}
