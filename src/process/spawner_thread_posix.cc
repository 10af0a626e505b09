#include "process/spawner_thread.h"

#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include "core/error_codes.h"

namespace pi_fusion::process {
namespace {

struct Job {
  const std::function<void()>* task = nullptr;
  std::exception_ptr error;
  bool done = false;
};

// One per process. Deliberately leaked: the thread may still be waiting on it while static
// destructors run at exit, and it must never be destroyed under it.
class Spawner {
 public:
  explicit Spawner(pid_t owner) : owner_(owner) {}
  pid_t owner() const { return owner_; }

  Status Run(const std::function<void()>& task) {
    Job job;
    job.task = &task;
    std::unique_lock<std::mutex> lock(mu_);
    if (!started_) {
      try {
        std::thread([this] { Loop(); }).detach();
      } catch (const std::system_error& e) {
        return Status::Error(kChildSpawnFailed,
                             std::string("cannot start the spawner thread: ") + e.what());
      }
      started_ = true;
    }
    queue_.push_back(&job);
    wake_.notify_one();
    finished_.wait(lock, [&] { return job.done; });
    lock.unlock();
    if (job.error) std::rethrow_exception(job.error);
    return Status::Ok();
  }

 private:
  [[noreturn]] void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      wake_.wait(lock, [&] { return !queue_.empty(); });
      Job* job = queue_.front();
      queue_.pop_front();
      lock.unlock();
      try {
        (*job->task)();
      } catch (...) {
        job->error = std::current_exception();
      }
      lock.lock();
      job->done = true;
      finished_.notify_all();
    }
  }

  const pid_t owner_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable finished_;
  std::deque<Job*> queue_;
  bool started_ = false;
};

// The spawner of this process. A process forked from one that already had a spawner inherits the
// object but not its thread, so the owner pid decides whether it is ours.
Spawner& CurrentSpawner() {
  static std::atomic<Spawner*> current{nullptr};
  const pid_t self = getpid();
  Spawner* spawner = current.load(std::memory_order_acquire);
  while (spawner == nullptr || spawner->owner() != self) {
    Spawner* fresh = new Spawner(self);
    if (current.compare_exchange_strong(spawner, fresh, std::memory_order_acq_rel)) {
      return *fresh;
    }
    delete fresh;  // another thread installed one first; `spawner` now holds it
  }
  return *spawner;
}

}  // namespace

Status RunOnSpawnerThread(const std::function<void()>& task) { return CurrentSpawner().Run(task); }

}  // namespace pi_fusion::process
