// ChildExits: the stage children whose stage moved on at their verified answer, until they are
// reaped (docs/architecture-process.md, "Ending at the answer").
//
// A stage hands its child here once the child's answer verified and its attempt was recorded
// completed; the child's job goes on supervising it (it exits by itself, or is stopped
// limits.after_answer later). Settle() waits for every such child, records each exit in its
// attempt, and judges what each child did after its answer: the whole run is verified again with
// the real exit status (a stop the supervisor made after the answer counts as a clean exit), so a
// non-zero exit, a signal it was not sent, a frame or stdout byte after the answer, an answer
// that no longer verifies, or a tool-call audit log changed since the answer is a late failure. The
// run calls Settle() before its terminal manifest, so it never becomes terminal with a child alive
// or an exit unrecorded, and a late failure fails the run, even after a later stage has used the
// answer.
//
// Thread-safe: candidates Add() from their own threads; Settle() runs on the run's thread.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pi_fusion/status.h"
#include "process/supervisor.h"
#include "run/child_job.h"
#include "store/manifest.h"

namespace pi_fusion {
class FileSystem;
}

namespace pi_fusion::store {
class RunStore;
}

namespace pi_fusion::run {

// The manifest's record of how a child ended, with when.
store::ChildExitRecord ExitRecordOf(const process::ChildOutcome& outcome, bool after_answer);

// When the child's first output arrived (process::ChildOutcome::first_output_at on the outcome's
// wall clock), RFC 3339; none when it wrote none.
std::optional<std::string> FirstOutputAtOf(const process::ChildOutcome& outcome);
// The manifest's record of the pooled process that ran the child; nullopt for a cold or warm one.
std::optional<store::PooledRecord> PooledRecordOf(const process::ChildOutcome& outcome);

struct AnsweredChild {
  std::unique_ptr<ChildJob> job;
  store::AttemptKey key;
  std::string answer;  // the verified answer the stage moved on with
  std::string provider;
  std::string model;
  std::optional<std::string> oversized_original;  // as read when the answer was verified
  // Artifacts the child's process tree could still write after its answer (a tool-enabled
  // child's audit log and seal), bound as they were then; each must still match its ref.
  std::vector<std::string> audit_artifacts;
};

struct LateFailure {
  Status status;
  store::AttemptKey key;
};

class ChildExits {
 public:
  ChildExits() = default;
  ~ChildExits();  // waits for children never settled (a run that threw), without recording
  ChildExits(const ChildExits&) = delete;
  ChildExits& operator=(const ChildExits&) = delete;

  void Add(AnsweredChild child);

  // Waits for every child added so far, records each exit in its attempt (state unchanged:
  // completed; a late failure also as the attempt's error), and returns the first late failure in
  // the order the children were added. A
  // failure to record is a late failure too, and so is an audit artifact that no longer matches
  // what was bound at the answer (tool_audit_invalid).
  std::optional<LateFailure> Settle(store::RunStore& store, FileSystem& fs);

 private:
  std::mutex mu_;
  std::vector<AnsweredChild> children_;  // guarded by mu_
};

}  // namespace pi_fusion::run
