#include "addon/js_dispatcher.h"

#include <memory>

namespace pi_fusion::addon {
namespace {

using Closure = std::function<void(Napi::Env)>;

void CallClosure(Napi::Env env, Napi::Function, Closure* fn) {
  std::unique_ptr<Closure> owned(fn);
  if (env == nullptr) return;  // the environment is being torn down
  // Nothing may escape: an exception left pending here is an uncaught exception in the host,
  // which Pi answers by exiting. A closure that fails loses its own report, never the session.
  try {
    (*owned)(env);
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
  auto* boxed = new Closure(std::move(fn));
  const napi_status status = tsfn_.NonBlockingCall(
      boxed, [](Napi::Env env, Napi::Function cb, Closure* c) { CallClosure(env, cb, c); });
  if (status != napi_ok) {
    delete boxed;
    return false;
  }
  return true;
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

}  // namespace pi_fusion::addon
