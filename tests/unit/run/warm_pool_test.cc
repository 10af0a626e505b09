// The warm pool's decisions: what a pooled command is and what it is keyed by, which Pi serves
// pooled tasks, and how the pool keeps, hands out and releases processes. The processes are real
// (a shell that sleeps, spoken to by no task), so every release is seen to end one.
#include <signal.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "core/env_vars.h"
#include "core/random_id.h"
#include "run/warm_pool.h"
#include "test_support.h"

namespace pi_fusion::run {
namespace {

using std::chrono::milliseconds;

process::ChildSpec ColdCandidate(std::string model = "scripted-a") {
  process::ChildSpec spec;
  spec.argv = {
      "/node",           "/pi/dist/cli.js", "--mode",  "text", "--no-session", "--no-tools",
      "--provider",      "scripted",        "--model", model,  "--thinking",   "off",
      "--system-prompt", "Answer."};
  spec.env = {"HOME=/home/a", std::string(env_vars::kChildRole) + "=candidate",
              std::string(env_vars::kOversizePath) + "=/r/candidate-1.oversized.md",
              std::string(env_vars::kRequestSignalFd) + "=3", "PATH=/usr/bin"};
  spec.cwd = "/project";
  spec.stdin_data = "the prompt";
  spec.inherit_fds = {9};
  return spec;
}

TEST_CASE("WarmPool: a pooled command runs rpc, carries the per-task variables, keys the rest") {
  const std::optional<PooledCommand> command =
      PooledCommandOf(ColdCandidate(), "1.6.0", SystemRandom());
  REQUIRE(command);
  CHECK(command->spawn.argv[3] == "rpc");
  CHECK(command->spawn.env == std::vector<std::string>{"HOME=/home/a", "PATH=/usr/bin"});
  CHECK(command->spawn.inherit_fds.empty());
  CHECK(command->spawn.stdin_data.empty());
  CHECK(command->task.vars == std::map<std::string, std::string>{
                                  {env_vars::kChildRole, "candidate"},
                                  {env_vars::kOversizePath, "/r/candidate-1.oversized.md"}});
  CHECK(command->task.task_id.size() == 32);
  CHECK(command->route.provider == "scripted");
  CHECK(command->route.model_id == "scripted-a");
  CHECK(command->route.thinking_level == "off");
  CHECK(command->cwd == "/project");

  // The route and the per-task variables are not part of the key; everything else is.
  process::ChildSpec other_task = ColdCandidate("scripted-b");
  other_task.env[2] = std::string(env_vars::kOversizePath) + "=/r/candidate-3.oversized.md";
  CHECK(PooledCommandOf(other_task, "1.6.0", SystemRandom())->key == command->key);
  CHECK(PooledCommandOf(ColdCandidate(), "1.6.1", SystemRandom())->key != command->key);
  process::ChildSpec tools = ColdCandidate();
  tools.argv[5] = "--no-builtin-tools";
  CHECK(PooledCommandOf(tools, "1.6.0", SystemRandom())->key != command->key);
  process::ChildSpec env = ColdCandidate();
  env.env[0] = "HOME=/home/b";
  CHECK(PooledCommandOf(env, "1.6.0", SystemRandom())->key != command->key);
  process::ChildSpec project = ColdCandidate();
  project.cwd = "/other";
  CHECK(PooledCommandOf(project, "1.6.0", SystemRandom())->key != command->key);
  // Two tasks never share an id.
  CHECK(PooledCommandOf(ColdCandidate(), "1.6.0", SystemRandom())->task.task_id !=
        command->task.task_id);
}

TEST_CASE("WarmPool: a command not of the cold child's shape is not pooled") {
  process::ChildSpec no_mode = ColdCandidate();
  no_mode.argv.erase(no_mode.argv.begin() + 2, no_mode.argv.begin() + 4);
  CHECK_FALSE(PooledCommandOf(no_mode, "1.6.0", SystemRandom()));
  process::ChildSpec json = ColdCandidate();
  json.argv[3] = "json";
  CHECK_FALSE(PooledCommandOf(json, "1.6.0", SystemRandom()));
  process::ChildSpec twice = ColdCandidate();
  twice.argv.insert(twice.argv.end(), {"--model", "x"});
  CHECK_FALSE(PooledCommandOf(twice, "1.6.0", SystemRandom()));
}

TEST_CASE("WarmPool: Pi 1.6.0 and newer serve pooled tasks; older or unknown ones do not") {
  CHECK(PiServesPooledTasks("1.6.0"));
  CHECK(PiServesPooledTasks("1.10.2"));
  CHECK(PiServesPooledTasks("2.0.0-rc.1"));
  CHECK_FALSE(PiServesPooledTasks("1.5.9"));
  CHECK_FALSE(PiServesPooledTasks("0.81.1"));
  CHECK_FALSE(PiServesPooledTasks(""));
  CHECK_FALSE(PiServesPooledTasks("one"));
  CHECK_FALSE(RunPool::For(nullptr, 60, "1.6.0"));
  WarmPool pool;
  CHECK_FALSE(RunPool::For(&pool, 0, "1.6.0"));
  CHECK_FALSE(RunPool::For(&pool, 60, "0.81.1"));
  CHECK(RunPool::For(&pool, 60, "1.6.0"));
}

TEST_CASE("WarmPool: the Pi version is read from the package beside its CLI") {
  store::testing::TempDir dir;
  const std::string pkg = dir.path() + "/pi";
  for (const std::string& sub : {pkg, pkg + "/dist", pkg + "/dist/bundle"}) {
    REQUIRE(mkdir(sub.c_str(), 0700) == 0);
  }
  store::testing::WriteAll(pkg + "/package.json",
                           R"({"name":"@earendil-works/pi-coding-agent","version":"1.6.0"})");
  CHECK(PiVersionOf(PosixFileSystem(), pkg + "/dist/bundle/cli.js") == "1.6.0");
  CHECK(PiVersionOf(PosixFileSystem(), pkg + "/dist/cli.js") == "1.6.0");
  CHECK(PiVersionOf(PosixFileSystem(), dir.path() + "/nowhere/cli.js").empty());
}

// A pooled process that never gets a task: `sh -c 'exec sleep 60' --mode rpc`.
process::ChildSpec Sleeper() {
  process::ChildSpec spec;
  spec.argv = {"/bin/sh", "-c", "exec sleep 60", "--mode", "rpc"};
  spec.env = {"PATH=/usr/bin:/bin"};
  return spec;
}

PooledCommand SleeperCommand(const std::string& key, const std::string& cwd = "/p") {
  PooledCommand command;
  command.key = key;
  command.cwd = cwd;
  command.spawn = Sleeper();
  return command;
}

bool Alive(pid_t pid) { return kill(pid, 0) == 0; }

// Waits (up to 5 s) for `pid` to be gone; the pool reaps its own, so kill(0) fails then.
bool GoneSoon(pid_t pid) {
  for (int i = 0; i < 500 && Alive(pid); ++i) std::this_thread::sleep_for(milliseconds(10));
  return !Alive(pid);
}

struct Fixture {
  std::optional<uint64_t> available = uint64_t{8} << 30;
  WarmPool::Limits limits{.max_tasks = 20,
                          .max_resident_bytes = 512ull << 20,
                          .min_available_bytes = 512ull << 20,
                          .reap_period = milliseconds(20)};
  WarmPool pool{
      [](const process::ChildSpec& spec) { return process::PooledChild::StartPosix(spec); },
      [this] { return available; }, limits};
};

TEST_CASE("WarmPool: a run's end keeps one ready per command; Take hands it out by key") {
  Fixture f;
  f.pool.KeepReady({SleeperCommand("k1"), SleeperCommand("k1"), SleeperCommand("k2")},
                   milliseconds(60000));
  CHECK(f.pool.ReadyCount() == 3);
  CHECK_FALSE(f.pool.Take("k3"));
  std::unique_ptr<process::PooledChild> a = f.pool.Take("k1");
  std::unique_ptr<process::PooledChild> b = f.pool.Take("k1");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->pid() != b->pid());
  CHECK_FALSE(f.pool.Take("k1"));
  CHECK(f.pool.ReadyCount() == 1);
  // Back after a task: ready again under its command's key.
  const pid_t kept = a->pid();
  f.pool.Return(std::move(a), SleeperCommand("k1"), milliseconds(60000));
  CHECK(f.pool.Take("k1")->pid() == kept);
  // Taken and dropped: PooledChild ends it.
  const pid_t dropped = b->pid();
  b.reset();
  CHECK(GoneSoon(dropped));
}

TEST_CASE("WarmPool: a project keeps at most three; the newest run's commands stay") {
  Fixture f;
  f.pool.KeepReady({SleeperCommand("old1"), SleeperCommand("old2"), SleeperCommand("old3")},
                   milliseconds(60000));
  std::unique_ptr<process::PooledChild> old = f.pool.Take("old1");
  const pid_t old_pid = old->pid();
  f.pool.Return(std::move(old), SleeperCommand("old1"), milliseconds(60000));
  f.pool.KeepReady({SleeperCommand("new1"), SleeperCommand("new2")}, milliseconds(60000));
  CHECK(f.pool.ReadyCount() == 3);
  CHECK(f.pool.Take("new1"));
  CHECK(f.pool.Take("new2"));
  // Another project's processes do not count against this one's three.
  f.pool.KeepReady({SleeperCommand("x", "/q")}, milliseconds(60000));
  CHECK(f.pool.Take("x"));
  (void)old_pid;
}

TEST_CASE("WarmPool: idle past its time, past its memory bound, or with memory short: released") {
  Fixture f;
  f.pool.KeepReady({SleeperCommand("idle")}, milliseconds(50));
  std::unique_ptr<process::PooledChild> taken = f.pool.Take("idle");
  REQUIRE(taken);
  const pid_t idle = taken->pid();
  f.pool.Return(std::move(taken), SleeperCommand("idle"), milliseconds(50));
  CHECK(GoneSoon(idle));
  CHECK(f.pool.ReadyCount() == 0);

  f.pool.KeepReady({SleeperCommand("fat")}, milliseconds(60000));
  std::unique_ptr<process::PooledChild> fat = f.pool.Take("fat");
  REQUIRE(fat);
  const pid_t fat_pid = fat->pid();
  fat->set_resident_reader([](pid_t) { return std::optional<uint64_t>(uint64_t{600} << 20); });
  f.pool.Return(std::move(fat), SleeperCommand("fat"), milliseconds(60000));
  CHECK(GoneSoon(fat_pid));  // never ready again: over the bound at its return

  f.pool.KeepReady({SleeperCommand("m")}, milliseconds(60000));
  REQUIRE(f.pool.ReadyCount() == 1);
  std::unique_ptr<process::PooledChild> m = f.pool.Take("m");
  const pid_t m_pid = m->pid();
  f.pool.Return(std::move(m), SleeperCommand("m"), milliseconds(60000));
  f.available = uint64_t{100} << 20;  // the reaper sees memory short and releases it
  CHECK(GoneSoon(m_pid));
  f.pool.KeepReady({SleeperCommand("m")}, milliseconds(60000));
  CHECK(f.pool.ReadyCount() == 0);  // and starts nothing while it is short
}

TEST_CASE("WarmPool: a process that died while ready is never handed out; EndAll ends the rest") {
  Fixture f;
  f.pool.KeepReady({SleeperCommand("d"), SleeperCommand("e")}, milliseconds(60000));
  std::unique_ptr<process::PooledChild> d = f.pool.Take("d");
  const pid_t d_pid = d->pid();
  f.pool.Return(std::move(d), SleeperCommand("d"), milliseconds(60000));
  kill(d_pid, SIGKILL);
  std::unique_ptr<process::PooledChild> e = f.pool.Take("e");
  const pid_t e_pid = e->pid();
  f.pool.Return(std::move(e), SleeperCommand("e"), milliseconds(60000));
  for (int i = 0; i < 100 && f.pool.ReadyCount() > 1; ++i)
    std::this_thread::sleep_for(milliseconds(10));
  CHECK_FALSE(f.pool.Take("d"));
  CHECK(Alive(e_pid));
  f.pool.EndAll();
  CHECK(GoneSoon(e_pid));
  f.pool.KeepReady({SleeperCommand("late")}, milliseconds(60000));
  CHECK(f.pool.ReadyCount() == 0);
}

}  // namespace
}  // namespace pi_fusion::run
