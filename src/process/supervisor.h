// The child supervisor: runs one child process to completion under hard limits.
//
// RunChild starts argv in its own process group, writes the stdin bytes and closes stdin, captures
// stdout and stderr up to their caps, and enforces a wall-clock limit, an idle watchdog (no byte on
// either stream) and cancellation. When any of these fires, the whole group is stopped:
// SIGTERM -> termination grace -> SIGKILL -> kill wait. Every run ends with the group swept by
// SIGKILL while the leader is still an unreaped zombie (so its pgid cannot be reused) and then
// with our pid reaped, so nothing of the child outlives the call. Design notes:
// docs/architecture-process.md.
//
// It runs inside Node: no signal handlers, no SIGCHLD, no waitpid(-1) — only our own pid is
// waited for, through a pidfd where the kernel has one.
//
// Thread-safety: Supervisor::Run and RunChild are safe to call from many threads at once (each
// call blocks its calling thread for the life of the child and shares nothing with other calls,
// provided the ProcessEnv is thread-safe, as the POSIX one is).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "process/process_env.h"

namespace pi_fusion::process {

// Limits of one child. The defaults are the spec's (seed-fusion-subsystem.md, "Artifacts, usage,
// and lifecycle"); tests shrink them to milliseconds.
struct ChildLimits {
  size_t stdout_cap = 32u << 20;  // bytes kept from stdout; one more byte => child_output_cap
  size_t stderr_cap = 16u << 20;  // bytes kept from stderr; one more byte => child_output_cap
  std::chrono::milliseconds wall{50 * 60 * 1000};  // from spawn to the start of stopping
  std::chrono::milliseconds idle{35 * 60 * 1000};  // with no byte on stdout or stderr
  // Until the child's first byte, the idle limit is at least this: a child's start-up writes
  // nothing, and a short idle limit must not stop a child that is still starting (a cold Pi on a
  // busy machine takes seconds). 0 = the idle limit from the spawn, as always.
  std::chrono::milliseconds idle_before_output{0};
  std::chrono::milliseconds term_grace{5000};  // SIGTERM to SIGKILL
  // After SIGKILL: how long to wait for the leader to exit and the pipes to close before giving
  // up on them (reported as a cleanup error).
  std::chrono::milliseconds kill_wait{5000};
  // Minimum spacing of kOutput progress reports. 0 = after every read.
  std::chrono::milliseconds progress_interval{1000};
  // With ChildSpec::answer_complete: how long a child may go on after its answer is complete
  // before it is stopped (SIGTERM -> grace -> SIGKILL). A Pi child exits 0.2-0.5 s after it
  // printed its answer; one that lingers longer holds nothing the run needs.
  std::chrono::milliseconds after_answer{1000};
};

struct ChildOutcome;

// Whether everything the child owes has arrived (its caller's protocol decides; the process layer
// only asks). Called on the supervising thread after new bytes were read, while the child runs.
// REQUIRES: must not throw and should return quickly.
using AnswerCheck =
    std::function<bool(const std::string& stdout_bytes, const std::string& stderr_bytes)>;
// Called once, on the supervising thread, when AnswerCheck first says true: the outcome so far
// (the bytes captured up to then; no exit status yet). Supervision goes on to the child's end.
using AnswerCallback = std::function<void(const ChildOutcome& at_answer)>;
// Whether the bytes so far hold the child's first output (its caller's protocol decides what
// counts). Called on the supervising thread after new bytes were read, until it first says true.
// REQUIRES: must not throw and should return quickly.
using OutputCheck =
    std::function<bool(const std::string& stdout_bytes, const std::string& stderr_bytes)>;

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0]: the executable path (no PATH lookup by default)
  std::vector<std::string> env;   // the complete environment ("KEY=value"); see child_command.h
  std::string cwd;                // empty = the parent's working directory
  bool search_path = false;       // resolve argv[0] through the parent's PATH
  bool die_with_parent = true;    // see SpawnRequest::die_with_parent
  std::vector<int> inherit_fds;   // see SpawnRequest::inherit_fds (not owned)
  std::string stdin_data;         // written fully, then stdin is closed
  ChildLimits limits;
  // Optional, together: let the caller move on at the child's complete answer instead of its
  // exit (docs/architecture-process.md, "Ending at the answer"). From then on the child has
  // limits.after_answer to exit by itself before it is stopped.
  AnswerCheck answer_complete;
  AnswerCallback on_answer;
  // Optional: marks when the child's first output arrived (ChildOutcome::first_output_at).
  OutputCheck first_output;
};

// Why the supervisor stopped the child, if it did.
enum class StopReason {
  kNone,             // the child exited on its own
  kWallLimit,        // child_timeout
  kIdleLimit,        // child_timeout
  kStdoutCap,        // child_output_cap
  kStderrCap,        // child_output_cap
  kCancelled,        // child_cancelled
  kStdinFailed,      // child_stdin_failed (EPIPE or another write error)
  kSupervisorError,  // child_exit_failed: poll() itself failed
  // The child had not exited limits.after_answer after its answer was complete. Not an error by
  // itself (status stays ok): the caller judges what the child did after its answer.
  kAfterAnswer,
};

// Stable snake_case name ("wall_limit", ...), for records and logs.
const char* StopReasonName(StopReason reason);

struct ChildOutcome {
  pid_t pid = -1;  // also the process-group id
  // How the leader ended; both empty when it could not be reaped (see cleanup_errors).
  std::optional<int> exit_code;
  std::optional<int> term_signal;

  std::string stdout_bytes;  // at most limits.stdout_cap bytes
  std::string stderr_bytes;  // at most limits.stderr_cap bytes
  bool stdout_truncated = false;
  bool stderr_truncated = false;
  size_t stdin_bytes_written = 0;

  StopReason stop_reason = StopReason::kNone;
  // Ok unless the supervisor stopped the child; then the spec code (child_timeout says which
  // limit) and a message. The bytes above are kept either way, as partial evidence.
  Status status;
  // kIdleLimit: whether it fired before the child's first byte (under idle_before_output).
  bool idle_before_output = false;
  // True when the leader exited while other members of its group still held stdout/stderr open;
  // they were then stopped like a timed-out child.
  bool group_outlived_leader = false;
  // With ChildSpec::answer_complete: when the answer was complete (from the start, like
  // duration), and whether the stop, if any, began after it (then it was ours to make, not the
  // child's failure).
  std::optional<std::chrono::milliseconds> answer_at;
  // With ChildSpec::first_output: when it first said true (from the start, like duration), to the
  // supervisor's read; none when it never did.
  std::optional<std::chrono::milliseconds> first_output_at;
  // Set when a pooled process (pooled_child.h) ran this child's task: which of its tasks this was
  // (1 = its first) and when the process started. Unset for every cold or warm child.
  struct Pooled {
    int task = 1;
    std::chrono::system_clock::time_point process_started_at;
  };
  std::optional<Pooled> pooled;
  bool stopped_after_answer = false;
  // Failures while stopping or reaping (kill() errors other than ESRCH, pipes still open after the
  // kill wait, a pid that could not be reaped). Never silently dropped.
  std::vector<std::string> cleanup_errors;

  std::chrono::system_clock::time_point started_at;
  std::chrono::system_clock::time_point ended_at;
  std::chrono::milliseconds duration{0};  // monotonic, spawn to reap
};

// Progress, reported on the supervising thread. kSpawned once, right after the spawn; kOutput
// after reads, at most every limits.progress_interval.
struct ChildProgress {
  enum class Event { kSpawned, kOutput };
  Event event = Event::kSpawned;
  pid_t pid = -1;
  size_t stdout_size = 0;  // bytes kept so far
  size_t stderr_size = 0;
  std::chrono::milliseconds elapsed{0};
  // The stderr kept so far (stderr_size bytes), for a reader of the child's frames; valid only
  // during the call.
  std::string_view stderr_bytes;
  // The child is a pooled process serving a task (pooled_child.h), not a process of its own.
  bool pooled = false;
};
// REQUIRES: must not throw and should return quickly (the child's pipes are not drained while it
// runs). It may call CancelToken::Cancel().
using ProgressCallback = std::function<void(const ChildProgress&)>;

class Supervisor {
 public:
  // `env` is not owned and must outlive the supervisor.
  explicit Supervisor(ProcessEnv* env) : env_(env) {}

  // Runs one child to completion. A non-ok Result means no child ran: `child_spawn_failed` (bad
  // spec, exec failure such as ENOENT, no descriptors) or `child_cancelled` (already cancelled).
  // Otherwise the outcome says how it ended; use OutcomeStatus() to judge it.
  Result<ChildOutcome> Run(const ChildSpec& spec, const CancelToken& cancel = CancelToken(),
                           const ProgressCallback& progress = nullptr) const;

 private:
  ProcessEnv* env_;
};

// Supervisor::Run with the POSIX env.
Result<ChildOutcome> RunChild(const ChildSpec& spec, const CancelToken& cancel = CancelToken(),
                              const ProgressCallback& progress = nullptr);

// The caller's verdict on an outcome, in order: the supervisor's stop status (child_timeout,
// child_output_cap, child_cancelled, child_stdin_failed); then `child_exit_failed` for a non-zero
// exit, death by a signal, or a leader that was never reaped; then `child_exit_failed` for a clean
// exit whose cleanup failed. Cleanup errors are appended to every message.
Status OutcomeStatus(const ChildOutcome& outcome);

}  // namespace pi_fusion::process
