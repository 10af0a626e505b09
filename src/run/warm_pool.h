// WarmPool: candidate processes kept ready between runs (policy.keep_warm_seconds; docs/config.md,
// "The warm pool").
//
// A cold candidate is a new `pi` process that spends about half a second (more than a second when
// three start on two cores) before its first request. With keep_warm_seconds set, a run's end
// leaves up to config::kWarmPoolSize `pi --mode rpc` processes of its project ready; the next
// run's candidates take the one whose key matches and run their task in it
// (process::PooledChild, docs/protocol.md "Pooled children"). The key is everything a process
// cannot change per task: the project directory, the command line but for the route (provider,
// model, thinking level), which holds the Pi and Node it runs, the workflow's tools and system
// prompt and the extension set, the environment but for the per-child variables, and Pi's
// version. A process is released when idle past its keep-warm time, after kMaxTasks tasks, when
// its resident memory passes kMaxResidentBytes, when the machine has less than
// kMinAvailableBytes available, and when the pool is destroyed (Pi exits). A process whose task
// failed in any way is never given back: PooledChild ends it.
//
// RunPool is one run's view of it: takes processes for the run's candidates, gives reusable ones
// back, and after the run keeps processes ready for the commands its candidates ran.
//
// Thread-safety: WarmPool is thread-safe (runs take and return from their candidate threads; a
// reaper thread ends idle processes). RunPool is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/file_system.h"
#include "core/pooled_task.h"
#include "core/random_id.h"
#include "pi_fusion/status.h"
#include "process/pooled_child.h"
#include "process/supervisor.h"

namespace pi_fusion::run {

// The oldest Pi whose RPC mode serves pooled tasks as docs/protocol.md describes: new_session runs
// each extension's session handlers once (fixed in 1.6.0). An older Pi starts every candidate cold.
inline constexpr std::string_view kPoolMinPiVersion = "1.6.0";

// A cold candidate's command as a pooled process runs it.
struct PooledCommand {
  std::string key;           // what a ready process must match (see the file comment)
  std::string cwd;           // the project: the pool keeps at most kWarmPoolSize per project
  process::ChildSpec spawn;  // `--mode rpc`, the environment without per-child variables
  pooled_task::Task task;    // this attempt's per-child variables (a fresh task id)
  process::TaskRoute route;  // this attempt's provider, model and thinking level
};

// `cold`'s command for a pooled process, keyed with `pi_version`; nullopt when `cold` is not a
// candidate command of the shape process::BuildChildArgv makes (`--mode text`, one each of
// --provider, --model, --thinking). The task id comes from `random`; nullopt when it cannot.
std::optional<PooledCommand> PooledCommandOf(const process::ChildSpec& cold,
                                             const std::string& pi_version, RandomSource& random);

// The version of the Pi package whose CLI is `pi_cli_path` (its package.json, beside `dist/` or
// `dist/bundle/`); "" when it cannot be read.
std::string PiVersionOf(FileSystem& fs, const std::string& pi_cli_path);
// True when `version` (x.y.z) is at least kPoolMinPiVersion.
bool PiServesPooledTasks(std::string_view version);

class WarmPool {
 public:
  struct Limits {
    int max_tasks = 20;                           // a process is ended after this many
    uint64_t max_resident_bytes = 512ull << 20;   // ... or past this much resident memory
    uint64_t min_available_bytes = 512ull << 20;  // nothing is kept below this much available
    std::chrono::milliseconds reap_period{1000};  // how often idle processes are looked at
  };
  using Starter =
      std::function<Result<std::unique_ptr<process::PooledChild>>(const process::ChildSpec&)>;
  // MemAvailable of the machine in bytes; nullopt when unknown (then not a reason to release).
  using MemoryProbe = std::function<std::optional<uint64_t>()>;

  // The production pool: PooledChild::StartPosix, /proc/meminfo.
  WarmPool();
  WarmPool(Starter starter, MemoryProbe memory, Limits limits);
  ~WarmPool();  // EndAll()
  WarmPool(const WarmPool&) = delete;
  WarmPool& operator=(const WarmPool&) = delete;

  // A ready process for `key`; null when none.
  std::unique_ptr<process::PooledChild> Take(const std::string& key);
  // A process whose task left it reusable: ready again for `keep`, unless a limit ends it.
  void Return(std::unique_ptr<process::PooledChild> child, const PooledCommand& command,
              std::chrono::milliseconds keep);
  // After a run: one ready process per command (a process already ready for the same key counts),
  // each kept for `keep`; the project's other ready processes beyond kWarmPoolSize are ended.
  void KeepReady(const std::vector<PooledCommand>& commands, std::chrono::milliseconds keep);
  // Ends every ready process and stops the reaper. Later calls start nothing.
  void EndAll();

  // Ready processes now (for tests and /fusion-models).
  size_t ReadyCount();

 private:
  struct Entry {
    std::string key;
    std::string cwd;
    std::unique_ptr<process::PooledChild> child;
    std::chrono::steady_clock::time_point idle_until;
  };
  bool MemoryShort();
  bool Healthy(process::PooledChild& child);
  void StartReaperLocked();
  void Reap();
  // Ends `children` outside the lock (each may wait for its exit).
  static void EndOutside(std::vector<std::unique_ptr<process::PooledChild>> children);

  Starter starter_;
  MemoryProbe memory_;
  Limits limits_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> ready_;  // guarded by mu_
  bool ended_ = false;        // guarded by mu_
  std::thread reaper_;
};

// One run's use of the pool.
class RunPool {
 public:
  // Null unless `pool` is set, `keep_warm_seconds` > 0 and the host's Pi serves pooled tasks.
  static std::unique_ptr<RunPool> For(WarmPool* pool, double keep_warm_seconds,
                                      const std::string& pi_version);

  struct Taken {
    std::unique_ptr<process::PooledChild> child;  // null: start cold
    std::optional<PooledCommand> command;         // null when `cold` cannot be pooled
  };
  // A ready process for the cold candidate command `cold`. Records the command, so that the
  // run's end keeps a process ready for it.
  Taken Take(const process::ChildSpec& cold, RandomSource& random);
  void Return(std::unique_ptr<process::PooledChild> child, const PooledCommand& command);
  // At the run's end: keeps processes ready for the commands its candidates ran.
  void KeepReady();

 private:
  RunPool(WarmPool* pool, std::chrono::milliseconds keep, std::string pi_version)
      : pool_(pool), keep_(keep), pi_version_(std::move(pi_version)) {}

  WarmPool* pool_;
  std::chrono::milliseconds keep_;
  std::string pi_version_;
  std::mutex mu_;
  std::vector<PooledCommand> ran_;  // guarded by mu_
};

}  // namespace pi_fusion::run
