#include "run/attempt_recorder.h"

#include <utility>

#include "core/error_codes.h"

namespace pi_fusion::run {
namespace {

store::AttemptState StateFor(const Status& status) {
  if (status.ok()) return store::AttemptState::kCompleted;
  return status.code() == kChildCancelled ? store::AttemptState::kCancelled
                                          : store::AttemptState::kFailed;
}

}  // namespace

std::string RecordedPrompt(const StageChild& child) {
  return "# system prompt\n" + child.system_prompt + "\n\n# stdin\n" + child.stdin_text + "\n";
}

AttemptRecorder::AttemptRecorder(PreparedRun& run, const StageChild& child)
    : run_(run), key_(child.key) {}

std::string AttemptRecorder::Path(store::AttemptFile file) const {
  return run_.store->run_dir() + "/" + store::AttemptFileName(key_, file);
}

Status AttemptRecorder::Begin(const StageChild& child, store::StoreBatch* carry) {
  Write(store::AttemptFile::kPrompt, RecordedPrompt(child));
  store::AttemptUpdate update;
  update.key = key_;
  update.state = store::AttemptState::kRunning;
  Status s = Flush(std::move(update), carry != nullptr ? *carry : store::StoreBatch{});
  if (s.ok() && carry != nullptr) *carry = {};
  return s;
}

void AttemptRecorder::Write(store::AttemptFile file, std::string bytes) {
  pending_.push_back({store::AttemptFileName(key_, file), std::move(bytes)});
}

Status AttemptRecorder::End(const Status& outcome, const std::optional<store::Usage>& usage,
                            std::optional<uint64_t> requests,
                            std::optional<store::ChildExitRecord> exit) {
  store::AttemptUpdate update;
  update.key = key_;
  update.state = StateFor(outcome);
  update.usage = usage;
  update.requests = requests;
  update.exit = std::move(exit);
  update.first_output_at = first_output_at_;
  update.pooled = pooled_;
  if (!outcome.ok()) update.error = store::AttemptError{outcome.code(), outcome.message()};
  Status recorded = Flush(update, {});
  if (recorded.ok()) return outcome;
  // Its evidence could not be written: the attempt still ends, failed with that error.
  update.state = store::AttemptState::kFailed;
  update.error = store::AttemptError{recorded.code(), recorded.message()};
  (void)run_.store->RecordAttempt(update);
  return recorded;
}

Status AttemptRecorder::Flush(store::AttemptUpdate update, store::StoreBatch batch) {
  for (store::StoreBatch::File& file : pending_) {
    update.artifacts.push_back(file.name);
    batch.files.push_back(std::move(file));
  }
  pending_.clear();
  batch.attempt = std::move(update);
  return run_.store->Apply(batch);
}

}  // namespace pi_fusion::run
