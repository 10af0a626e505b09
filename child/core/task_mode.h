// The child library's task mode: a pooled child (docs/protocol.md, "Pooled children").
//
// A pooled child is started with PI_FUSION_TASK_FD, the number of an inherited pipe only the
// parent writes, and without any per-child variable. Its first registration (Pi's start) has no
// task and refuses everything; each later one (the parent's `new_session`) reads one task record
// (core/pooled_task.h) from that pipe and takes the task's configuration from it:
//   - TaskDescriptor checks the variable's value;
//   - TaskRecordReader reads exactly one record line per task, keeping whatever follows its
//     newline for the next one;
//   - TaskEnvLookup answers the per-task variables from the record only, never from the process
//     environment, so nothing of an earlier task (or of the process's start) is in force;
//   - TaskExitCode is what Pi's text mode would have exited with, for the task's end line.
//
// Pure code but TaskRecordReader (POSIX read(2) and poll(2), task_channel_posix.cc).
// Thread-safety: none needed; the binding uses these on Node's JS thread only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "child/core/child_config.h"
#include "core/pooled_task.h"
#include "pi_fusion/status.h"

namespace pi_fusion::child {

// The task pipe's descriptor: decimal digits naming 3..1024. Error code "config_invalid".
Result<int> TaskDescriptor(std::string_view value);

// The environment of one task: a per-task variable (pooled_task::IsTaskVariable) from
// `task.vars` only (absent there: unset), PI_FUSION_REQUEST_SIGNAL_FD unset (the parent signals
// a pooled child's first request itself), every other name from `process`.
EnvLookup TaskEnvLookup(pooled_task::Task task, EnvLookup process);

// The exit code of Pi's text mode (print-mode.js) for a task: 1 when the child would have failed
// its exit (a runtime guard, a refusal, activity after the settlement: `failed`), or when the
// final message is an assistant message that stopped with error, aborted or length; else 0.
// `final_stop_reason` is the stop reason of the task's last message when that is an assistant
// message, nullopt otherwise.
int TaskExitCode(bool failed, const std::optional<std::string>& final_stop_reason);

// Reads task records from the task pipe. Owns no descriptor (the process inherits it).
class TaskRecordReader {
 public:
  static constexpr int kTimeoutMs = 5000;

  explicit TaskRecordReader(int fd) : fd_(fd) {}

  // The next record line, without its "\n": bytes up to the first newline, waiting at most
  // `timeout_ms` in all. Whatever the pipe held after that newline is kept for the next call.
  // Error code "config_invalid" when no newline came in time, the pipe ended or failed first, or
  // the line is longer than pooled_task::kMaxRecordBytes (newline included).
  Result<std::string> ReadLine(int timeout_ms = kTimeoutMs);

 private:
  int fd_;
  std::string pending_;  // bytes read past the last record's newline
};

}  // namespace pi_fusion::child
