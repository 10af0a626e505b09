// WarmChild against real children: started ahead of its input, then fed (timers from the feed),
// ended unfed, or found dead before its input. Each case ends with the child's group gone, its
// pid reaped and no descriptor leaked.
#include "process/warm_child.h"

#include <catch2/catch.hpp>
#include <thread>

#include "process_test_util.h"

namespace pi_fusion::process {
namespace {

using namespace std::chrono_literals;
using testing::Misbehave;
using testing::OpenFds;

std::unique_ptr<WarmChild> MustStart(const ChildSpec& spec) {
  Result<std::unique_ptr<WarmChild>> child = WarmChild::StartPosix(spec);
  INFO((child.ok() ? std::string("ok") : child.status().ToString()));
  REQUIRE(child.ok());
  return std::move(child).value();
}

TEST_CASE("WarmChild: fed later, it gets exactly its input and its wall limit starts at the feed") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"echo"});
  spec.limits.wall = 400ms;
  std::unique_ptr<WarmChild> warm = MustStart(spec);
  // Waiting longer than the wall limit before the input: no timer runs yet.
  std::this_thread::sleep_for(600ms);
  CHECK_FALSE(warm->EndedBeforeInput().has_value());
  spec.stdin_data = "the input";
  ChildOutcome out = warm->Feed(spec, CancelToken());
  CHECK(out.stop_reason == StopReason::kNone);
  CHECK(out.stdout_bytes == "the input");
  CHECK(OutcomeStatus(out).ok());
  CHECK(out.duration < 400ms);
  warm.reset();
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("WarmChild: started by a thread that ends before the feed, it stays alive") {
  // Children die with the thread that forked them (PR_SET_PDEATHSIG) unless spawning goes
  // through the process-lived spawner thread, as every spawn here does.
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"echo"});
  std::unique_ptr<WarmChild> warm;
  std::thread([&] { warm = MustStart(spec); }).join();
  std::this_thread::sleep_for(300ms);
  REQUIRE_FALSE(warm->EndedBeforeInput().has_value());
  spec.stdin_data = "still here";
  ChildOutcome out = warm->Feed(spec, CancelToken());
  CHECK(out.stdout_bytes == "still here");
  warm.reset();
  CHECK_CHILD_CLEAN(out, fds);
}

TEST_CASE("WarmChild: the idle watchdog counts from the feed, not from the start") {
  ChildSpec spec = Misbehave({"silent"});
  spec.limits.idle = 300ms;
  std::unique_ptr<WarmChild> warm = MustStart(spec);
  std::this_thread::sleep_for(500ms);
  ChildOutcome out = warm->Feed(spec, CancelToken());
  CHECK(out.stop_reason == StopReason::kIdleLimit);
  CHECK(out.duration >= 300ms);
}

TEST_CASE("WarmChild: ended unfed, its whole group is killed and reaped") {
  const auto fds = OpenFds();
  ChildSpec spec = Misbehave({"ignore-term"});
  std::unique_ptr<WarmChild> warm = MustStart(spec);
  const pid_t pid = warm->pid();
  CHECK(testing::AliveNotZombie(pid));
  CHECK(warm->End() == "stopped before its input");
  CHECK(testing::GroupGone(pid));
  CHECK(testing::Reaped(pid));
  warm.reset();
  CHECK(OpenFds() == fds);
}

TEST_CASE("WarmChild: the destructor ends an unfed child") {
  const auto fds = OpenFds();
  pid_t pid = -1;
  {
    std::unique_ptr<WarmChild> warm = MustStart(Misbehave({"silent"}));
    pid = warm->pid();
  }
  CHECK(testing::GroupGone(pid));
  CHECK(testing::Reaped(pid));
  CHECK(OpenFds() == fds);
}

TEST_CASE("WarmChild: a child that dies before its input is seen as ended and then reaped") {
  const auto fds = OpenFds();
  std::unique_ptr<WarmChild> warm = MustStart(Misbehave({"exit", "3"}));
  const pid_t pid = warm->pid();
  std::optional<std::string> ended;
  for (int i = 0; i < 500 && !ended; ++i) {
    ended = warm->EndedBeforeInput();
    if (!ended) std::this_thread::sleep_for(10ms);
  }
  REQUIRE(ended.has_value());
  CHECK(*ended == "exited with code 3");
  CHECK(warm->End() == "exited with code 3");
  CHECK(testing::Reaped(pid));
  warm.reset();
  CHECK(OpenFds() == fds);
}

TEST_CASE("WarmChild: a spawn failure is child_spawn_failed and leaves nothing open") {
  const auto fds = OpenFds();
  ChildSpec spec;
  spec.argv = {"/nonexistent/warm-child"};
  Result<std::unique_ptr<WarmChild>> child = WarmChild::StartPosix(spec);
  REQUIRE_FALSE(child.ok());
  CHECK(child.status().code() == "child_spawn_failed");
  CHECK(OpenFds() == fds);
}

}  // namespace
}  // namespace pi_fusion::process
