// WorkerThreads: the threads on which a child tool's blocking work runs (a fetcher process, a
// ripgrep or fd walk), off Node's JS thread; one set per environment (ChildState). Finished
// threads are joined when the next starts; CancelAndJoin (environment teardown, before the
// dispatcher the threads post to closes) cancels what still runs and joins the rest.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "process/cancel_token.h"

namespace pi_fusion::child {

class WorkerThreads {
 public:
  ~WorkerThreads() { CancelAndJoin(); }
  // Cancels what still runs and joins every thread; idempotent.
  void CancelAndJoin() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Entry& entry : entries_) entry.cancel.Cancel();
    for (Entry& entry : entries_) entry.thread.join();
    entries_.clear();
  }
  void Start(process::CancelToken cancel, std::function<void()> work) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::erase_if(entries_, [](Entry& entry) {
      if (!entry.done->load()) return false;
      entry.thread.join();
      return true;
    });
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread thread([work = std::move(work), done] {
      work();
      done->store(true);
    });
    entries_.push_back(Entry{std::move(thread), std::move(done), std::move(cancel)});
  }

 private:
  struct Entry {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
    process::CancelToken cancel;
  };
  std::mutex mutex_;
  std::vector<Entry> entries_;
};

}  // namespace pi_fusion::child
