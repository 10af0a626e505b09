#include "addon/quit_trace.h"

#include <unistd.h>

#include "addon/addon_state.h"
#include "addon/js_values.h"
#include "core/fd_write.h"

namespace pi_fusion::addon {
namespace {

// process.on("exit"): Pi calls process.exit once its TUI is stopped and its own last words are
// out, so the trace is the last thing the shell shows. A plain write(2): the event loop is over,
// and a terminal that is gone (SIGHUP) only fails the write.
void WriteQuitTrace(const Napi::CallbackInfo& info) {
  std::string text;
  for (const std::string& line : views::QuitTraceLines(State(info.Env()).quit_cancelled)) {
    text += line + "\n";
  }
  if (!text.empty()) (void)WriteAllToFd(STDERR_FILENO, text, "write to stderr");
}

}  // namespace

void RecordQuitEnd(Napi::Env env, const views::TerminalReport& terminal) {
  AddonState& state = State(env);
  if (!state.quitting || terminal.outcome.end != run::RunEnd::kCancelled) return;
  state.quit_cancelled.push_back({terminal.task.label, terminal.run_id, terminal.resume});
}

void LeaveQuitTrace(Napi::Env env) {
  AddonState& state = State(env);
  state.dispatcher->RunPending(env);
  if (state.quit_trace_installed) return;
  state.quit_trace_installed = true;
  Napi::Object process = env.Global().Get("process").As<Napi::Object>();
  Method(process, "once")
      .Call(process, {Napi::String::New(env, "exit"), Napi::Function::New(env, WriteQuitTrace)});
}

}  // namespace pi_fusion::addon
