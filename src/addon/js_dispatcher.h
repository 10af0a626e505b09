// Runs closures on the JS thread from any thread, through one thread-safe function.
//
// The function keeps Node's event loop alive only while runs are outstanding: a referenced
// long-lived thread-safe function would make `pi -p` hang at exit, an unreferenced one would
// let Node exit under a running Fusion run. Hold() / Release() count that work.
//
// Thread-safety: Post() is thread-safe. Construction, Hold(), Release(), Close() and the posted
// closures run on the JS thread.
#pragma once

#include <napi.h>

#include <atomic>
#include <functional>

namespace pi_fusion::addon {

class JsDispatcher {
 public:
  explicit JsDispatcher(Napi::Env env);
  JsDispatcher(const JsDispatcher&) = delete;
  JsDispatcher& operator=(const JsDispatcher&) = delete;

  // Queues `fn` for the JS thread. Returns false (and drops `fn`) once closed.
  bool Post(std::function<void(Napi::Env)> fn);
  void Hold(Napi::Env env);
  void Release(Napi::Env env);
  int holds() const { return holds_; }
  // Stops accepting work; idempotent.
  void Close();

 private:
  Napi::ThreadSafeFunction tsfn_;
  int holds_ = 0;
  std::atomic<bool> closed_{false};
};

}  // namespace pi_fusion::addon
