// AttemptRecorder: one stage child's attempt in the run's manifest — its row and its artifacts,
// each step one StoreBatch. Begin makes the prompt, the row (running) and whatever the run carries
// into this stage durable together; End does the same for the artifacts Write queued and the end
// state.
//
// Thread-compatible: one recorder per attempt, used by the thread that runs its child.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pi_fusion/status.h"
#include "run/child_stage.h"
#include "run/run_request.h"
#include "store/attempt_files.h"
#include "store/manifest.h"
#include "store/run_store.h"

namespace pi_fusion::run {

// What `<prefix>.prompt.txt` holds for `child`: its system prompt and its stdin, headed.
std::string RecordedPrompt(const StageChild& child);

class AttemptRecorder {
 public:
  AttemptRecorder(PreparedRun& run, const StageChild& child);

  // Where the child writes the attempt's `file` in the run directory.
  std::string Path(store::AttemptFile file) const;

  // The prompt and the running row, with `carry` (when given) in the same manifest write;
  // `carry` is emptied once written.
  Status Begin(const StageChild& child, store::StoreBatch* carry);

  // Queued until End writes it with the attempt's end state.
  void Write(store::AttemptFile file, std::string bytes);
  // When the child's first output arrived (RFC 3339), written with the end state.
  void NoteFirstOutput(std::optional<std::string> at) { first_output_at_ = std::move(at); }
  // The pooled process that ran the child, if one did; written with the end state.
  void NotePooled(std::optional<store::PooledRecord> pooled) { pooled_ = std::move(pooled); }

  // Records the end state; a store failure outranks the child's own outcome.
  Status End(const Status& outcome, const std::optional<store::Usage>& usage,
             std::optional<uint64_t> requests = std::nullopt,
             std::optional<store::ChildExitRecord> exit = std::nullopt);

 private:
  // The queued artifacts and `update`, which lists them, in `batch`'s one manifest write.
  Status Flush(store::AttemptUpdate update, store::StoreBatch batch);

  PreparedRun& run_;
  store::AttemptKey key_;
  std::vector<store::StoreBatch::File> pending_;
  std::optional<std::string> first_output_at_;
  std::optional<store::PooledRecord> pooled_;
};

}  // namespace pi_fusion::run
