// Many children at once from many threads, and one cancel token shared by several runs.
#include <poll.h>
#include <signal.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <thread>
#include <vector>

#include "process/cancel_token.h"
#include "process/supervisor.h"
#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::Misbehave;
using testing::OpenFds;
using testing::RelaxedLimits;

// One run of a mixed workload; returns a description of what went wrong, or "".
std::string RunOne(int kind) {
  ChildLimits limits = RelaxedLimits();
  ChildSpec spec;
  switch (kind % 4) {
    case 0:
      spec = Misbehave({"echo"});
      spec.stdin_data = std::string(200 * 1024, static_cast<char>('a' + kind));
      break;
    case 1:
      spec = Misbehave({"exit", "5"});
      break;
    case 2:
      limits.idle = 250ms;
      spec = Misbehave({"silent"}, limits);
      break;
    default:
      limits.stdout_cap = 512 * 1024;
      spec = Misbehave({"flood-stdout"}, limits);
      break;
  }
  Result<ChildOutcome> r = RunChild(spec);
  if (!r.ok()) return r.status().ToString();
  const ChildOutcome& out = r.value();
  std::string problem;
  switch (kind % 4) {
    case 0:
      if (out.stdout_bytes != spec.stdin_data || out.exit_code != 0) problem = "echo";
      break;
    case 1:
      if (out.exit_code != 5) problem = "exit code";
      break;
    case 2:
      if (out.stop_reason != StopReason::kIdleLimit) problem = "idle";
      break;
    default:
      if (out.stop_reason != StopReason::kStdoutCap) problem = "cap";
      break;
  }
  if (!testing::GroupGone(out.pid)) problem += " group survived";
  if (!testing::Reaped(out.pid)) problem += " not reaped";
  return problem;
}

TEST_CASE("Supervisor: several threads supervise children at once without interference") {
  const auto fds = OpenFds();
  std::mutex mu;
  std::vector<std::string> problems;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &mu, &problems] {
      for (int i = 0; i < 4; ++i) {
        std::string problem = RunOne(t + i);
        if (!problem.empty()) {
          std::lock_guard<std::mutex> lock(mu);
          problems.push_back("thread " + std::to_string(t) + " run " + std::to_string(i) + ": " +
                             problem);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  CHECK(problems.empty());
  for (const auto& p : problems) WARN(p);
  CHECK(OpenFds() == fds);
}

TEST_CASE("Supervisor: one cancel token stops every child of a run") {
  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  const auto fds = OpenFds();
  std::vector<Result<ChildOutcome>> results(3, Status::Error("pending", ""));
  std::atomic<int> spawned{0};
  auto count_spawns = [&spawned](const ChildProgress& p) {
    if (p.event == ChildProgress::Event::kSpawned) ++spawned;
  };
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([i, &results, &token, &count_spawns] {
      results[i] = RunChild(Misbehave({"silent"}), token.value(), count_spawns);
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (spawned.load() < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(5ms);
  }
  token.value().Cancel();
  for (auto& thread : threads) thread.join();
  for (const auto& r : results) {
    REQUIRE(r.ok());
    CHECK(r.value().status.code() == "child_cancelled");
    CHECK_CHILD_CLEAN(r.value(), fds);
  }
}

TEST_CASE("CancelToken: wakes pollers, stays readable, and is idempotent") {
  CancelToken never;
  CHECK(never.wait_fd() == -1);
  never.Cancel();
  CHECK_FALSE(never.IsCancelled());

  Result<CancelToken> token = CancelToken::Create();
  REQUIRE(token.ok());
  const CancelToken copy = token.value();
  CHECK_FALSE(copy.IsCancelled());
  pollfd p{copy.wait_fd(), POLLIN, 0};
  CHECK(poll(&p, 1, 0) == 0);
  std::thread canceller([&token] { token.value().Cancel(); });
  CHECK(poll(&p, 1, 5000) == 1);  // woken from another thread
  canceller.join();
  token.value().Cancel();
  CHECK(copy.IsCancelled());
  for (int i = 0; i < 2; ++i) {  // level-triggered: every later poll sees it too
    p.revents = 0;
    CHECK(poll(&p, 1, 0) == 1);
  }
}

}  // namespace
}  // namespace pi_fusion::process
