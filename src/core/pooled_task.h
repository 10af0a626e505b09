// The pooled child's task channel (docs/protocol.md, "Pooled children").
//
// A pooled child is a `pi --mode rpc` process started before any run needs it and reused, one task
// at a time, by later runs of the same project (policy.keep_warm_seconds). It cannot take a task's
// per-child variables (core/env_vars.h, Scope::kPerChild) from its environment, which was fixed
// when it started; so the parent writes them, one record per task, to a pipe the child inherits as
// descriptor kTaskChildFd (PI_FUSION_TASK_FD), and then asks Pi for a new session. The child
// library reads that record at the registration the new session causes, and says on stderr, in
// lines of its own, that the task has begun and how it ended:
//
//   parent -> task pipe:  {"schema_version":"pi-background-tasks.fusion-pooled-task.v1",
//                          "task_id":"<32 lowercase hex>","vars":{<per-child name>:<value>,…}}\n
//   child  -> stderr:     @pi-fusion-task-start {"task_id":"…"}\n
//   child  -> stderr:     @pi-fusion-task-end {"exit_code":0,"task_id":"…"}\n
//
// The end line carries the exit code Pi's text mode would have ended with (1 after a runtime guard
// or when the final message stopped with error, aborted or length; else 0), so the parent judges a
// pooled task exactly as a cold child. Neither line is a frame: the parent cuts them out of the
// stderr it keeps for the task.
//
// Pure code; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"

namespace pi_fusion::pooled_task {

inline constexpr char kSchemaVersion[] = "pi-background-tasks.fusion-pooled-task.v1";
inline constexpr std::string_view kStartPrefix = "@pi-fusion-task-start ";
inline constexpr std::string_view kEndPrefix = "@pi-fusion-task-end ";
// The descriptor number the child inherits the task pipe's read end as.
inline constexpr int kTaskChildFd = 3;
// A task record is at most this long, newline included (the child reads no further).
inline constexpr size_t kMaxRecordBytes = 256 * 1024;

struct Task {
  std::string task_id;                      // 32 lowercase hex digits, fresh per task
  std::map<std::string, std::string> vars;  // per-child variables only (env_vars::IsPerChild)
};

// The record line for `task` (canonical JSON, then "\n").
// REQUIRES: task.vars names only per-child variables, other than PI_FUSION_REQUEST_SIGNAL_FD and
// PI_FUSION_TASK_FD, and every value is valid UTF-8.
std::string EncodeRecord(const Task& task);

// Parses one record line (its final "\n" optional). Error code "config_invalid" for anything but
// exactly the shape above: the schema id, a task id of 32 lowercase hex digits, vars an object of
// strings whose names are per-child variables other than PI_FUSION_REQUEST_SIGNAL_FD and
// PI_FUSION_TASK_FD (no NUL in a value).
Result<Task> ParseRecord(std::string_view line);

// True when `name` may travel in a task record.
bool IsTaskVariable(std::string_view name);

// The child's lines (each ends with "\n").
std::string StartLine(std::string_view task_id);
std::string EndLine(std::string_view task_id, int exit_code);

struct End {
  std::string task_id;
  int exit_code = 0;
};
// One stderr line (without its "\n") read back; nullopt when it is not such a line or malformed.
std::optional<std::string> ParseStartLine(std::string_view line);
std::optional<End> ParseEndLine(std::string_view line);

}  // namespace pi_fusion::pooled_task
