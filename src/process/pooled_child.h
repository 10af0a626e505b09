// PooledChild: a `pi --mode rpc` candidate process kept warm between runs and reused, one task at
// a time (policy.keep_warm_seconds; docs/protocol.md, "Pooled children").
//
// Start() spawns the process with the task pipe's read end as its descriptor
// pooled_task::kTaskChildFd (PI_FUSION_TASK_FD=3). RunTask() gives it one task: a bounded setup
// (the task record on the pipe, new_session, the start line, set_model, set_thinking_level,
// prompt), then supervision exactly like a cold child's (ChildRun: wall limit, idle watchdog,
// caps, cancel, the same stop sequence and outcome), timed from the prompt's acceptance, up to the
// child's end line. The task's outcome reads like a cold child's: its stdout is what Pi's text
// mode would have printed, its stderr what came between the start and end lines, its exit code
// the end line's. Any failure before the prompt is accepted leaves started=false (the caller
// starts the attempt cold); any stop, death or protocol anomaly after it ends the process. In
// every case where the process is not reusable, RunTask has killed and reaped it before it
// returns.
//
// Thread-compatible: one owner at a time. RunTask blocks for the life of the task; End for at
// most its kill wait.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/pooled_task.h"
#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "process/process_env.h"
#include "process/supervisor.h"

namespace pi_fusion::process {

// The model a task runs with (Pi's set_model and set_thinking_level).
struct TaskRoute {
  std::string provider;
  std::string model_id;
  std::string thinking_level;
};

struct TaskResult {
  // False: the task never began (setup failed; `reason` says why in one line) and the process is
  // gone. The outcome is then empty.
  bool started = false;
  // True: the task ended at its end line with no stop; the process is idle and may take another.
  bool reusable = false;
  std::string reason;
  ChildOutcome outcome;
};

class PooledChild {
 public:
  // Spawns spec.argv / env / cwd / search_path / die_with_parent now (spec.stdin_data, limits and
  // callbacks are ignored), with PI_FUSION_TASK_FD=3 added to the environment. Error code
  // child_spawn_failed, also for a spec whose argv lacks `--mode rpc`, whose environment already
  // holds a per-child variable (core/env_vars.h), or that asks to inherit descriptors.
  // `env` must outlive the child.
  static Result<std::unique_ptr<PooledChild>> Start(ProcessEnv* env, const ChildSpec& spec);
  // Start() with the POSIX env.
  static Result<std::unique_ptr<PooledChild>> StartPosix(const ChildSpec& spec);

  PooledChild(const PooledChild&) = delete;
  PooledChild& operator=(const PooledChild&) = delete;
  ~PooledChild();  // End()

  pid_t pid() const { return child_.pid; }
  std::chrono::system_clock::time_point started_at() const { return started_wall_; }
  // Tasks that ended at their end line (reusable or not).
  int tasks() const { return tasks_; }
  // True once the process exited (or was ended); false while it runs idle.
  bool EndedOnItsOwn();
  // VmRSS of the process (the group leader), or nullopt when unknown or ended.
  std::optional<uint64_t> ResidentBytes();
  // Reads a process's resident bytes; the default reads VmRSS from /proc/<pid>/status.
  using ResidentReader = std::function<std::optional<uint64_t>(pid_t)>;
  // Replaces the reader (tests fake it).
  void set_resident_reader(ResidentReader reader) { resident_reader_ = std::move(reader); }
  static std::optional<uint64_t> ReadProcResidentBytes(pid_t pid);

  // The bound of RunTask's setup (default 10 s), for tests.
  void set_setup_limit(std::chrono::milliseconds limit) { setup_limit_ = limit; }

  // Runs one task (see the file comment). `task` gives the prompt (stdin_data), the limits and
  // the callbacks of a cold child's spec (argv, env, cwd and inherit_fds are ignored);
  // `record` the task id and per-child variables; `request_signal_fd` (-1 or a pipe's write end)
  // gets one byte once the prompt is accepted. REQUIRES: the process was not ended.
  TaskResult RunTask(const ChildSpec& task, const pooled_task::Task& record, const TaskRoute& route,
                     const CancelToken& cancel, const ProgressCallback& progress = nullptr,
                     int request_signal_fd = -1);

  // Closes the process's stdin (Pi's orderly shutdown), SIGKILLs its group after a short grace,
  // and reaps it. Idempotent. Returns how it ended ("ended idle", "exited with code 1", …).
  std::string End(std::chrono::milliseconds kill_wait = std::chrono::milliseconds(5000));

 private:
  struct Setup;
  PooledChild(ProcessEnv* env, SpawnedProcess child, int task_fd,
              std::chrono::system_clock::time_point started_wall);
  // Setup I/O until `done` holds, the bound passes, or the process fails us; "" or the reason.
  std::string SetupUntil(Setup* setup, const std::function<bool()>& done, const char* what);
  std::string SetupExchange(Setup* setup, std::string command, const char* what);
  std::string OnSetupStdoutLine(Setup* setup, std::string_view line);
  // SIGKILLs the group (after `grace` with stdin closed), reaps, closes everything.
  std::string Kill(std::chrono::milliseconds grace, std::chrono::milliseconds kill_wait);
  std::string Diagnostic() const;

  ProcessEnv* env_;
  SpawnedProcess child_;
  int task_fd_ = -1;  // the task pipe's write end
  std::chrono::system_clock::time_point started_wall_;
  int tasks_ = 0;
  uint64_t next_request_ = 1;
  std::optional<std::string> ended_;  // set once the process is gone
  std::chrono::milliseconds setup_limit_{10000};
  ResidentReader resident_reader_ = &PooledChild::ReadProcResidentBytes;
  // Line framing of stdout and stderr, kept across tasks (a line may span reads).
  std::string stdout_partial_;
  std::string stderr_partial_;
  // The last bytes of idle noise discarded at a setup, for a diagnostic.
  std::string noise_tail_;
};

}  // namespace pi_fusion::process
