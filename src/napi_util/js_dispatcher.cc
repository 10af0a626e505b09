#include "napi_util/js_dispatcher.h"

#include <utility>

namespace pi_fusion::napi_util {
namespace {

using Closure = std::function<void(Napi::Env)>;

void CallClosure(Napi::Env env, Closure& fn) {
  // Nothing may escape: an exception left pending here is an uncaught exception in the host,
  // which Pi answers by exiting. A closure that fails loses its own report, never the session.
  try {
    fn(env);
  } catch (const Napi::Error&) {
    // The JS exception is owned by the caught Error (node-addon-api cleared it); dropping it here
    // keeps it from becoming the host's uncaught exception.
  } catch (...) {
  }
}

}  // namespace

JsDispatcher::JsDispatcher(Napi::Env env) {
  tsfn_ = Napi::ThreadSafeFunction::New(env, Napi::Function(), "pi-fusion", 0, 1);
  tsfn_.Unref(env);
}

bool JsDispatcher::Post(std::function<void(Napi::Env)> fn) {
  if (closed_.load()) return false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(fn));
  }
  // One call per closure; a call finding the queue already drained (by RunPending) does nothing.
  const napi_status status =
      tsfn_.NonBlockingCall(this, [](Napi::Env env, Napi::Function, JsDispatcher* self) {
        if (env != nullptr) self->RunPending(env);  // null: the environment is being torn down
      });
  // Fails only while closing: the closure then waits for a RunPending() or dies with the queue.
  return status == napi_ok;
}

void JsDispatcher::RunPending(Napi::Env env) {
  for (;;) {
    Closure next;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.empty()) return;
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    CallClosure(env, next);
  }
}

void JsDispatcher::Hold(Napi::Env env) {
  if (holds_++ == 0 && !closed_.load()) tsfn_.Ref(env);
}

void JsDispatcher::Release(Napi::Env env) {
  if (holds_ > 0 && --holds_ == 0 && !closed_.load()) tsfn_.Unref(env);
}

void JsDispatcher::Close() {
  if (closed_.exchange(true)) return;
  tsfn_.Release();
}

}  // namespace pi_fusion::napi_util
