// The bg_kill answers: for a run of this process once it stopped (or did not within the wait),
// and for a run of this session from an earlier Pi process, which this process cannot stop.
#include "views/lifecycle_texts.h"

#include <catch2/catch.hpp>

using namespace pi_fusion;
using namespace pi_fusion::tasks;
using namespace pi_fusion::views;

namespace {

constexpr char kRun[] = "reason-0123456789abcdef0123456789abcdef";

TaskInfo Run(TaskState state, std::string terminal_text = "") {
  TaskInfo task;
  task.id = kRun;
  task.state = state;
  task.terminal_text = std::move(terminal_text);
  return task;
}

}  // namespace

TEST_CASE("KillAnswerFor: killed, committed meanwhile, failed meanwhile, or not settled") {
  CHECK(KillAnswerFor(kRun, Run(TaskState::kKilled, "cancelled by bg_kill")).text ==
        "killed " + std::string(kRun) + "\ncancelled by bg_kill");
  const KillAnswer committed = KillAnswerFor(kRun, Run(TaskState::kCompleted, "done"));
  CHECK(committed.text.find("completed before it could be stopped") != std::string::npos);
  CHECK(committed.details["state"] == "completed");
  CHECK(KillAnswerFor(kRun, Run(TaskState::kFailed)).details["state"] == "failed");
  const KillAnswer waiting = KillAnswerFor(kRun, Run(TaskState::kRunning));
  CHECK(waiting.details["state"] == "running");
  CHECK(waiting.text.find("has not settled within 30 s") != std::string::npos);
}

TEST_CASE(
    "KillAnswerForEarlier: an ended earlier run has nothing to stop; a live one is elsewhere") {
  const KillAnswer completed = KillAnswerForEarlier(Run(TaskState::kCompleted));
  CHECK(completed.text ==
        std::string(kRun) + " ran in an earlier Pi process and completed; nothing to stop.");
  CHECK(completed.details ==
        nlohmann::json{{"task_id", kRun}, {"state", "completed"}, {"earlier_process", true}});
  const KillAnswer ended =
      KillAnswerForEarlier(Run(TaskState::kFailed, "host_ended: the run's host process ended"));
  CHECK(ended.text == std::string(kRun) +
                          " ran in an earlier Pi process and failed; nothing to stop.\n"
                          "host_ended: the run's host process ended");
  CHECK(KillAnswerForEarlier(Run(TaskState::kKilled)).text.find("was cancelled") !=
        std::string::npos);
  const KillAnswer elsewhere = KillAnswerForEarlier(Run(TaskState::kRunning));
  CHECK(elsewhere.details["state"] == "running");
  CHECK(elsewhere.text.find("running in another Pi process") != std::string::npos);
  CHECK(elsewhere.text.find("Call bg_kill there") != std::string::npos);
}
