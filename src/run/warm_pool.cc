#include "run/warm_pool.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "config/config_constants.h"
#include "core/env_vars.h"
#include "core/json_text.h"
#include "core/random_id.h"

namespace pi_fusion::run {
namespace {

using Clock = std::chrono::steady_clock;

// The value after `flag` in `argv`; its index, or argv.size() when the flag is missing, repeated
// or last.
size_t ValueIndex(const std::vector<std::string>& argv, std::string_view flag) {
  size_t found = argv.size();
  for (size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] != flag) continue;
    if (found != argv.size()) return argv.size();
    found = i + 1;
  }
  return found;
}

std::string NameOf(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// Reads MemAvailable from /proc/meminfo, in bytes.
std::optional<uint64_t> MemAvailable() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> name >> kib >> unit) {
    if (name == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

std::chrono::milliseconds KeepOf(double seconds) {
  const double capped = std::min(seconds, config::kMaxKeepWarmSeconds);
  return std::chrono::milliseconds(static_cast<int64_t>(std::ceil(capped * 1000)));
}

std::optional<std::array<int, 3>> ParseVersion(std::string_view text) {
  std::array<int, 3> parts{};
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (size_t i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, parts[i]);
    if (ec != std::errc()) return std::nullopt;
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
  }
  return parts;  // a pre-release suffix ("-rc.1") after the patch is ignored
}

}  // namespace

std::optional<PooledCommand> PooledCommandOf(const process::ChildSpec& cold,
                                             const std::string& pi_version, RandomSource& random) {
  const std::vector<std::string>& argv = cold.argv;
  const size_t mode = ValueIndex(argv, "--mode");
  const size_t provider = ValueIndex(argv, "--provider");
  const size_t model = ValueIndex(argv, "--model");
  const size_t thinking = ValueIndex(argv, "--thinking");
  for (size_t index : {mode, provider, model, thinking}) {
    if (index == argv.size()) return std::nullopt;
  }
  if (argv[mode] != "text") return std::nullopt;
  Result<std::string> id = RandomHex(random, 16);
  if (!id.ok()) return std::nullopt;

  PooledCommand command;
  command.cwd = cold.cwd;
  command.route = {argv[provider], argv[model], argv[thinking]};
  command.task.task_id = *id;
  command.spawn = cold;
  command.spawn.argv[mode] = "rpc";
  command.spawn.stdin_data.clear();
  command.spawn.inherit_fds.clear();  // the first-request signal: the parent writes it itself
  command.spawn.env.clear();
  for (const std::string& entry : cold.env) {
    const std::string name = NameOf(entry);
    if (!env_vars::IsPerChild(name)) {
      command.spawn.env.push_back(entry);
    } else if (pooled_task::IsTaskVariable(name)) {
      command.task.vars[name] = entry.substr(name.size() + 1);
    }
  }
  // The key: NUL never occurs in an argument, a variable or a path, so it separates them.
  std::string key = pi_version + '\0' + cold.cwd + '\0' + (cold.search_path ? "p" : "-") +
                    (cold.die_with_parent ? "d" : "-");
  for (size_t i = 0; i < argv.size(); ++i) {
    const bool route = i == provider || i == model || i == thinking;
    key += '\0';
    key += route ? std::string() : command.spawn.argv[i];
  }
  key += '\0';
  for (const std::string& entry : command.spawn.env) key += entry + '\0';
  command.key = std::move(key);
  return command;
}

std::string PiVersionOf(FileSystem& fs, const std::string& pi_cli_path) {
  std::string dir = pi_cli_path.substr(0, pi_cli_path.rfind('/'));
  // dist/cli.js or dist/bundle/cli.js: the package.json two or three levels up.
  for (int up = 0; up < 3 && dir.find('/') != std::string::npos; ++up) {
    dir = dir.substr(0, dir.rfind('/'));
    Result<std::string> bytes = fs.ReadFile(dir + "/package.json", 1 << 20);
    if (!bytes.ok()) continue;
    Result<nlohmann::json> json = ParseHostJson(*bytes, "config_invalid");
    if (!json.ok() || !json->is_object()) return "";
    const auto name = json->find("name");
    const auto version = json->find("version");
    if (name == json->end() || !name->is_string() ||
        name->get<std::string>().find("pi-coding-agent") == std::string::npos) {
      continue;
    }
    return version != json->end() && version->is_string() ? version->get<std::string>() : "";
  }
  return "";
}

bool PiServesPooledTasks(std::string_view version) {
  const std::optional<std::array<int, 3>> have = ParseVersion(version);
  const std::optional<std::array<int, 3>> need = ParseVersion(kPoolMinPiVersion);
  return have && need && *have >= *need;
}

WarmPool::WarmPool()
    : WarmPool(
          [](const process::ChildSpec& spec) { return process::PooledChild::StartPosix(spec); },
          MemAvailable, Limits{}) {}

WarmPool::WarmPool(Starter starter, MemoryProbe memory, Limits limits)
    : starter_(std::move(starter)), memory_(std::move(memory)), limits_(limits) {}

WarmPool::~WarmPool() { EndAll(); }

bool WarmPool::MemoryShort() {
  const std::optional<uint64_t> available = memory_ ? memory_() : std::nullopt;
  return available && *available < limits_.min_available_bytes;
}

bool WarmPool::Healthy(process::PooledChild& child) {
  if (child.EndedOnItsOwn()) return false;
  if (child.tasks() >= limits_.max_tasks) return false;
  const std::optional<uint64_t> resident = child.ResidentBytes();
  return !resident || *resident <= limits_.max_resident_bytes;
}

std::unique_ptr<process::PooledChild> WarmPool::Take(const std::string& key) {
  std::vector<std::unique_ptr<process::PooledChild>> dead;
  std::unique_ptr<process::PooledChild> found;
  {
    std::lock_guard lock(mu_);
    for (auto it = ready_.begin(); it != ready_.end();) {
      if (it->key != key) {
        ++it;
        continue;
      }
      std::unique_ptr<process::PooledChild> child = std::move(it->child);
      it = ready_.erase(it);
      if (child->EndedOnItsOwn()) {
        dead.push_back(std::move(child));
        continue;
      }
      found = std::move(child);
      break;
    }
  }
  EndOutside(std::move(dead));
  return found;
}

void WarmPool::Return(std::unique_ptr<process::PooledChild> child, const PooledCommand& command,
                      std::chrono::milliseconds keep) {
  if (!child) return;
  if (!Healthy(*child) || MemoryShort()) {
    child.reset();  // PooledChild's destructor ends it
    return;
  }
  std::lock_guard lock(mu_);
  if (ended_) return;  // `child` ends as it goes out of scope
  ready_.push_back({command.key, command.cwd, std::move(child), Clock::now() + keep});
  StartReaperLocked();
}

void WarmPool::KeepReady(const std::vector<PooledCommand>& commands,
                         std::chrono::milliseconds keep) {
  if (commands.empty()) return;
  std::vector<std::unique_ptr<process::PooledChild>> surplus;
  std::vector<const PooledCommand*> to_start;
  const bool memory_short = MemoryShort();
  {
    std::lock_guard lock(mu_);
    if (ended_) return;
    const auto until = Clock::now() + keep;
    std::vector<bool> claimed(ready_.size(), false);
    for (const PooledCommand& command : commands) {
      bool have = false;
      for (size_t i = 0; i < ready_.size() && !have; ++i) {
        if (claimed[i] || ready_[i].key != command.key) continue;
        claimed[i] = have = true;
        ready_[i].idle_until = std::max(ready_[i].idle_until, until);
      }
      if (!have && !memory_short) to_start.push_back(&command);
    }
    // The project keeps at most kWarmPoolSize: the newest run's commands first.
    size_t kept = to_start.size();
    for (size_t i = 0; i < ready_.size(); ++i) {
      if (ready_[i].cwd == commands.front().cwd && claimed[i]) ++kept;
    }
    for (size_t i = ready_.size(); i-- > 0;) {
      if (ready_[i].cwd != commands.front().cwd || claimed[i]) continue;
      if (kept < static_cast<size_t>(config::kWarmPoolSize) && !memory_short) {
        ++kept;
        continue;
      }
      surplus.push_back(std::move(ready_[i].child));
      ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  EndOutside(std::move(surplus));
  for (const PooledCommand* command : to_start) {
    Result<std::unique_ptr<process::PooledChild>> started = starter_(command->spawn);
    if (!started.ok() || !*started) continue;  // the next run's candidate starts cold
    std::lock_guard lock(mu_);
    if (ended_) return;  // `started` ends as it goes out of scope
    ready_.push_back({command->key, command->cwd, std::move(started).value(), Clock::now() + keep});
    StartReaperLocked();
  }
}

void WarmPool::EndAll() {
  std::vector<std::unique_ptr<process::PooledChild>> all;
  {
    std::lock_guard lock(mu_);
    ended_ = true;
    for (Entry& entry : ready_) all.push_back(std::move(entry.child));
    ready_.clear();
  }
  cv_.notify_all();
  if (reaper_.joinable() && reaper_.get_id() != std::this_thread::get_id()) reaper_.join();
  EndOutside(std::move(all));
}

size_t WarmPool::ReadyCount() {
  std::lock_guard lock(mu_);
  return ready_.size();
}

void WarmPool::StartReaperLocked() {
  if (reaper_.joinable() || ended_) return;
  reaper_ = std::thread(&WarmPool::Reap, this);
}

void WarmPool::Reap() {
  // The reaper's one catch (thread_entry.h): a failure here costs only warm starts.
  try {
    std::unique_lock lock(mu_);
    while (!ended_) {
      cv_.wait_for(lock, limits_.reap_period);
      if (ended_) break;
      std::vector<std::unique_ptr<process::PooledChild>> released;
      const auto now = Clock::now();
      lock.unlock();
      const bool memory_short = MemoryShort();
      lock.lock();
      for (auto it = ready_.begin(); it != ready_.end();) {
        const bool release = memory_short || it->idle_until <= now || !Healthy(*it->child);
        if (!release) {
          ++it;
          continue;
        }
        released.push_back(std::move(it->child));
        it = ready_.erase(it);
      }
      lock.unlock();
      EndOutside(std::move(released));
      lock.lock();
    }
  } catch (...) {
  }
}

void WarmPool::EndOutside(std::vector<std::unique_ptr<process::PooledChild>> children) {
  for (auto& child : children) {
    if (child) child->End();
  }
}

std::unique_ptr<RunPool> RunPool::For(WarmPool* pool, double keep_warm_seconds,
                                      const std::string& pi_version) {
  if (pool == nullptr || keep_warm_seconds <= 0 || !PiServesPooledTasks(pi_version)) return nullptr;
  return std::unique_ptr<RunPool>(new RunPool(pool, KeepOf(keep_warm_seconds), pi_version));
}

RunPool::Taken RunPool::Take(const process::ChildSpec& cold, RandomSource& random) {
  Taken taken;
  taken.command = PooledCommandOf(cold, pi_version_, random);
  if (!taken.command) return taken;
  {
    // One per candidate slot at most: a run's candidates are what the next run asks for.
    std::lock_guard lock(mu_);
    if (ran_.size() < static_cast<size_t>(config::kWarmPoolSize)) ran_.push_back(*taken.command);
  }
  taken.child = pool_->Take(taken.command->key);
  return taken;
}

void RunPool::Return(std::unique_ptr<process::PooledChild> child, const PooledCommand& command) {
  pool_->Return(std::move(child), command, keep_);
}

void RunPool::KeepReady() {
  std::vector<PooledCommand> ran;
  {
    std::lock_guard lock(mu_);
    ran.swap(ran_);
  }
  pool_->KeepReady(ran, keep_);
}

}  // namespace pi_fusion::run
