// Runs closures on the JS thread from any thread, through one thread-safe function: one per
// environment in each binding (the host plugin's run workers, the child library's tool walks and
// fetches). Compiled into each addon against its own napi.h.
//
// The function keeps Node's event loop alive only while work is outstanding (a run, a tool's
// walk): a referenced long-lived thread-safe function would make `pi -p` hang at exit, an
// unreferenced one would let Node exit under a running Fusion run. Hold() / Release() count that
// work.
//
// Posted closures wait in one queue that the thread-safe function's calls drain in order;
// RunPending() drains it at once, so a shutdown that joined the workers can deliver what they
// posted before Pi exits (Pi's exit does not wait for the event loop).
//
// Thread-safety: Post() is thread-safe. Construction, Hold(), Release(), RunPending(), Close()
// and the posted closures run on the JS thread.
#pragma once

#include <napi.h>

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>

namespace pi_fusion::napi_util {

class JsDispatcher {
 public:
  explicit JsDispatcher(Napi::Env env);
  JsDispatcher(const JsDispatcher&) = delete;
  JsDispatcher& operator=(const JsDispatcher&) = delete;

  // Queues `fn` for the JS thread. Returns false once closed (`fn` is then dropped, or run only by
  // a later RunPending()).
  bool Post(std::function<void(Napi::Env)> fn);
  // Runs every closure queued so far, now, in the order posted.
  void RunPending(Napi::Env env);

  void Hold(Napi::Env env);
  void Release(Napi::Env env);
  int holds() const { return holds_; }

  // Stops accepting work; idempotent.
  void Close();

 private:
  Napi::ThreadSafeFunction tsfn_;
  int holds_ = 0;
  std::atomic<bool> closed_{false};
  std::mutex mutex_;
  std::deque<std::function<void(Napi::Env)>> queue_;  // guarded by mutex_
};

}  // namespace pi_fusion::napi_util
