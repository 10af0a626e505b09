// Entry point of pi_fusion.node. Exports `register(pi, {packageRoot})`, called by
// extensions/fusion.ts; everything else is reached through the functions it registers.
#include <napi.h>

#include "addon/addon_state.h"
#include "addon/registration.h"

namespace pi_fusion::addon {

AddonState& State(Napi::Env env) { return *env.GetInstanceData<AddonState>(); }

AddonState::~AddonState() {
  StopAllRuns();
  warm_pool->EndAll();
  if (dispatcher) dispatcher->Close();
}

void AddonState::CancelAllRuns(tasks::CancelSource source) {
  tasks->CancelAll(source);
  // A run still in preflight is not registered yet: its token carries the cause itself.
  for (auto& [id, launch] : launches) {
    launch.cancel.CancelWithGrace(kQuitStopGrace, tasks::CancelSourceCause(source));
  }
}

void AddonState::StopAllRuns(tasks::CancelSource source) {
  CancelAllRuns(source);
  for (auto& [id, worker] : workers) {
    if (worker.joinable()) worker.join();
  }
  workers.clear();
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  // Freed by Node when the environment is torn down (the default finalizer deletes it).
  auto* state = new AddonState();
  state->dispatcher = std::make_unique<napi_util::JsDispatcher>(env);
  env.SetInstanceData(state);
  exports.Set("register", Napi::Function::New(env, Register, "register"));
  // For the end-to-end tests only (tests/e2e/fixtures/thread-probe.ts): how many run worker
  // threads this environment holds, finished or not (a finished one is dropped as it ends).
  exports.Set("runWorkerThreads", Napi::Function::New(
                                      env,
                                      [](const Napi::CallbackInfo& info) -> Napi::Value {
                                        return Napi::Number::New(
                                            info.Env(),
                                            static_cast<double>(State(info.Env()).workers.size()));
                                      },
                                      "runWorkerThreads"));
  return exports;
}

}  // namespace pi_fusion::addon

// NODE_API_MODULE pastes tokens onto the init function's name, so it needs an unqualified one.
static Napi::Object InitPiFusion(Napi::Env env, Napi::Object exports) {
  return pi_fusion::addon::Init(env, exports);
}
NODE_API_MODULE(pi_fusion, InitPiFusion)
