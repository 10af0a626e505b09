#include "tasks/task_registry.h"

#include <catch2/catch.hpp>

using pi_fusion::tasks::LookupMiss;
using pi_fusion::tasks::TaskDescription;
using pi_fusion::tasks::TaskInfo;
using pi_fusion::tasks::TaskRegistry;
using pi_fusion::tasks::TaskState;

namespace {
const std::string kA = "reason-0123456789abcdef0123456789abcdef";
const std::string kB = "reason-0123ffffffffffffffffffffffffffff";
const std::string kC = "research-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

void AddThreeTasks(TaskRegistry& registry) {
  for (const std::string& id : {kA, kB, kC}) {
    registry.Add(TaskInfo{id, id.substr(0, id.find('-')), "fusion x", "d", "tool", "/tmp/" + id},
                 *pi_fusion::process::CancelToken::Create());
  }
}
}  // namespace

TEST_CASE("TaskRegistry: resolves exact ids and unambiguous prefixes", "[tasks]") {
  TaskRegistry registry;
  AddThreeTasks(registry);
  struct Case {
    std::string query;
    std::string id;     // expected id, or empty for an error
    std::string error;  // expected message
    LookupMiss miss;    // expected kind
  };
  const Case cases[] = {
      {kA, kA, "", LookupMiss::kNone},
      {"reason-0123", "",
       "Ambiguous background task ID prefix: reason-0123 (matches " + kA + ", " + kB + ")",
       LookupMiss::kAmbiguousPrefix},
      {"reason-01234567", kA, "", LookupMiss::kNone},
      {"res", kC, "", LookupMiss::kNone},
      {"", "", "Task ID is required", LookupMiss::kIdRequired},
      {"validate-", "", "Unknown background task ID: validate-", LookupMiss::kUnknownId},
      // The short id the progress line shows (the first hex digits), and prefixes of it.
      {"01234567", kA, "", LookupMiss::kNone},
      {"aaaaaaaa", kC, "", LookupMiss::kNone},
      {"0123", "", "Ambiguous background task ID prefix: 0123 (matches " + kA + ", " + kB + ")",
       LookupMiss::kAmbiguousPrefix},
      {"23456789", "", "Unknown background task ID: 23456789", LookupMiss::kUnknownId},
  };
  for (const Case& c : cases) {
    INFO(c.query);
    auto found = registry.Resolve(c.query);
    CHECK(found.miss() == c.miss);
    if (c.id.empty()) {
      REQUIRE_FALSE(found.ok());
      CHECK(found.status().code() == "invalid_arguments");
      CHECK(found.status().message() == c.error);
    } else {
      REQUIRE(found.ok());
      CHECK(found->id == c.id);
    }
  }
  // bg_kill's lookup says the same words.
  CHECK(registry.Kill("validate-").status().message() == "Unknown background task ID: validate-");
  CHECK(registry.Kill("").status().message() == "Task ID is required");
}

TEST_CASE("TaskRegistry: kill cancels a running task once", "[tasks]") {
  TaskRegistry registry;
  auto token = *pi_fusion::process::CancelToken::Create();
  registry.Add(TaskInfo{kA, "reason", "fusion reason", "d", "tool", "/tmp/x"}, token);
  CHECK(registry.RunningCount() == 1);
  REQUIRE(registry.Kill("reason-").ok());
  CHECK(token.IsCancelled());
  registry.Finish(kA, TaskState::kKilled, "cancelled", "");
  CHECK(registry.RunningCount() == 0);
  auto again = registry.Kill(kA);
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().message() == "Background task " + kA + " is not running");
}

TEST_CASE("TaskDescription: collapses white space and cuts to 240 characters", "[tasks]") {
  CHECK(TaskDescription("  a\n\n b\tc  ") == "a b c");
  CHECK(TaskDescription(std::string(300, 'x')).size() == 240);
  std::string accents;
  for (int i = 0; i < 300; ++i) accents += "\xc3\xa9";
  CHECK(TaskDescription(accents).size() == 480);  // 240 code points, never a split one
}

TEST_CASE("TaskRegistry: each task keeps its own progress; a cancellation remembers who asked",
          "[tasks]") {
  using pi_fusion::run::ProgressEvent;
  using pi_fusion::tasks::CancelSource;
  using pi_fusion::tasks::SlotState;
  TaskRegistry registry;
  AddThreeTasks(registry);
  registry.Progress(kA, {ProgressEvent::kCandidateStarted, 1, "candidate 1 starting"}, 10);
  registry.Progress(kB, {ProgressEvent::kEvaluating, 0, "evaluating candidates"}, 20);
  CHECK(registry.Resolve(kA)->progress.candidates[0] == SlotState::kRunning);
  CHECK(registry.Resolve(kA)->last_progress == "fusion x: candidate 1 starting");
  CHECK(registry.Resolve(kB)->progress.evaluator == SlotState::kRunning);
  CHECK(registry.Resolve(kB)->progress.candidates[0] == SlotState::kPending);

  REQUIRE(registry.Kill(kA).ok());
  CHECK(registry.Resolve(kA)->cancelled_by == CancelSource::kBgKill);
  registry.CancelAll(CancelSource::kReload);
  CHECK(registry.Resolve(kA)->cancelled_by == CancelSource::kBgKill);  // the first request wins
  CHECK(registry.Resolve(kB)->cancelled_by == CancelSource::kReload);
}
