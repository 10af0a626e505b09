// What the host binding does at each host event, decided here from plain values so the binding
// only converts Pi's objects and carries the decision out: whether a settling agent is held for
// active runs, who a session shutdown says cancelled them, where a run's end is shown and how
// the agent is woken, and what print mode writes for a /fusion run (bg_kill's wait:
// kill_waits.h).
//
// Pure functions (PrintModeOutcome reads through the FileSystem seam); thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "tasks/progress.h"
#include "views/lifecycle_texts.h"

namespace pi_fusion::host {

// Pi's two settle hooks: agent_before_settle (Pi 0.87.0+) and agent_settled, which holds print
// mode on older Pis.
enum class SettleHook { kBeforeSettle, kSettled };
enum class SettleAction {
  kNothing,       // a UI session: Pi stays up by itself
  kReleaseWoken,  // an aborted agent_settled: end any earlier hold, hold nothing new
  kHold,          // print or json mode: keep Pi alive until the runs have ended
};
// REQUIRES: `aborted` is agent_settled's `aborted` flag (false for agent_before_settle).
SettleAction DecideSettle(SettleHook hook, bool has_ui, bool aborted);

// session_shutdown's `reason` ("quit", "reload", "new", "resume", "fork") as the cancellation's
// source; anything else is kUnknown. A quit that follows a SIGTERM or SIGHUP to Pi (the print,
// json and RPC modes' only way out besides their own end) is kSignal.
tasks::CancelSource ShutdownCancelSource(std::string_view reason, bool after_signal);

// Where the end of a run goes, for the host's current mode ("tui", "rpc", "json", "print").
struct TerminalHost {
  std::string mode;
  bool can_render = false;  // the TUI has the render module and a Pi that shows custom entries
  bool wake_agent = false;  // a tool launch: the agent is woken to call bg_result
  bool quitting = false;    // Pi is quitting (a quit signal or a quit): no turn may follow
};
enum class Notify { kNever, kAlways, kUnlessEntryShown };
enum class Wake {
  kNone,      // a /fusion run, or the agent itself cancelled it with bg_kill
  kAtSettle,  // print and json mode: returned from the held settle hook
  kFollowUp,  // TUI and RPC: a triggering follow-up message now
  kStderr,    // print and json mode while Pi quits: the notice on stderr, no turn
};
struct TerminalRoute {
  bool append_entry = false;  // show the run view as a display-only entry
  Notify notify = Notify::kNever;
  std::string notify_level;  // "info" | "error"
  Wake wake = Wake::kNone;
};
TerminalRoute RouteTerminal(const TerminalHost& host, const views::TerminalReport& terminal);

// The data of a run's display entry: the run view (display strings, for the renderer) plus
// `run` {id, workflow, state: completed|failed|cancelled, usage: Pi's Usage object or null,
// model_requests: a count or null, degraded: the result details' `degraded` record or null,
// artifact_dir}, the typed facts a json-mode reader or a later tool can use without parsing text.
nlohmann::json RunEntryData(const views::TerminalReport& terminal);

// What print mode writes when a /fusion run ends: the verified answer on stdout (newline
// terminated) and on stderr a degraded run's sentence first (run/degraded_text.h), then its usage
// line (model requests, tokens, cost) and artifact folder; or the failure on stderr and a failing
// exit.
struct PrintedOutcome {
  std::string stdout_text;
  std::vector<std::string> stderr_lines;
  bool failed = false;
};
PrintedOutcome PrintModeOutcome(FileSystem& fs, const views::TerminalReport& terminal);

}  // namespace pi_fusion::host
