#include "run/child_job.h"

#include <exception>
#include <utility>

#include "core/error_codes.h"

namespace pi_fusion::run {

ChildJob::ChildJob(Runner runner, process::ChildSpec spec, process::AnswerCheck check)
    : spec_(std::move(spec)) {
  spec_.answer_complete = std::move(check);
  spec_.on_answer = [this](const process::ChildOutcome& at_answer) {
    std::lock_guard lock(mu_);
    at_answer_ = at_answer;
    cv_.notify_all();
  };
  thread_ = std::thread(&ChildJob::Supervise, this, std::move(runner));
}

ChildJob::~ChildJob() {
  if (thread_.joinable()) thread_.join();
}

void ChildJob::Supervise(Runner runner) {
  std::optional<Result<process::ChildOutcome>> end;
  // The job thread's one catch (thread_entry.h): the stage waiting on this job gets the failure as
  // the child's end instead of the host ending.
  try {
    end.emplace(runner(spec_));
  } catch (const std::exception& e) {
    end.emplace(Status::Error(kOrchestrationFailed,
                              std::string("internal error supervising a child: ") + e.what()));
  } catch (...) {
    end.emplace(Status::Error(kOrchestrationFailed, "internal error supervising a child"));
  }
  std::lock_guard lock(mu_);
  end_ = std::move(end);
  cv_.notify_all();
}

Result<process::ChildOutcome> ChildJob::WaitForAnswerOrEnd(bool* at_answer) {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return at_answer_.has_value() || end_.has_value(); });
  // A child that already ended is judged by its end: its exit status is there.
  *at_answer = !end_.has_value();
  if (*at_answer) return *at_answer_;
  return *end_;
}

Result<process::ChildOutcome> ChildJob::WaitForEnd() {
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return end_.has_value(); });
  }
  if (thread_.joinable()) thread_.join();
  return std::move(*end_);
}

}  // namespace pi_fusion::run
