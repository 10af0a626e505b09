#include "host/host_events.h"

#include "core/name_table.h"
#include "run/adaptive_text.h"
#include "run/degraded_text.h"
#include "run/judgment_text.h"
#include "run/source_failures.h"
#include "store/verify.h"
#include "views/view_parts.h"

namespace pi_fusion::host {

SettleAction DecideSettle(SettleHook hook, bool has_ui, bool aborted) {
  if (has_ui) return SettleAction::kNothing;
  // Pi skips agent_before_settle for an aborted agent, so its agent_settled holds nothing either.
  if (hook == SettleHook::kSettled && aborted) return SettleAction::kReleaseWoken;
  return SettleAction::kHold;
}

namespace {

using tasks::CancelSource;

// session_shutdown's reasons and the cancellation each one is.
constexpr NameTable<CancelSource, 5> kShutdownReasons = {
    {CancelSource::kQuit, CancelSource::kReload, CancelSource::kNewSession, CancelSource::kResume,
     CancelSource::kFork},
    {"quit", "reload", "new", "resume", "fork"}};

}  // namespace

CancelSource ShutdownCancelSource(std::string_view reason, bool after_signal) {
  const CancelSource source = kShutdownReasons.Parse(reason).value_or(CancelSource::kUnknown);
  return source == CancelSource::kQuit && after_signal ? CancelSource::kSignal : source;
}

TerminalRoute RouteTerminal(const TerminalHost& host, const views::TerminalReport& terminal) {
  TerminalRoute route;
  const bool tui = host.mode == "tui";
  const bool rpc = host.mode == "rpc";
  const bool failed = terminal.outcome.end != run::RunEnd::kCompleted;
  route.notify_level = failed ? "error" : "info";
  // A /fusion run shows its answer (or failure) as a display-only entry: the TUI renders it, and
  // json and rpc clients get it as an `entry_appended` event. Print mode prints it instead.
  route.append_entry =
      terminal.task.source == "command" && host.mode != "print" && (!tui || host.can_render);
  // RPC clients render nothing themselves: they always get the notification. The TUI gets one
  // only when nothing rendered shows the end (no render module, or an older Pi).
  if (rpc) {
    route.notify = Notify::kAlways;
  } else if (tui) {
    route.notify = host.wake_agent && host.can_render ? Notify::kNever : Notify::kUnlessEntryShown;
  }
  // The agent asked for this cancellation itself: it already has bg_kill's result.
  if (!host.wake_agent || terminal.task.cancelled_by == tasks::CancelSource::kBgKill) return route;
  // A quitting Pi takes no more turns: whoever watches has the notification, a print or json
  // mode run's notice goes to stderr.
  if (host.quitting) {
    if (tui) route.notify = Notify::kUnlessEntryShown;  // no rendered wake message shows the end
    route.wake = tui || rpc ? Wake::kNone : Wake::kStderr;
    return route;
  }
  route.wake = tui || rpc ? Wake::kFollowUp : Wake::kAtSettle;
  return route;
}

nlohmann::json RunEntryData(const views::TerminalReport& terminal) {
  const run::RunOutcome& outcome = terminal.outcome;
  const char* state = outcome.end == run::RunEnd::kCompleted   ? "completed"
                      : outcome.end == run::RunEnd::kCancelled ? "cancelled"
                                                               : "failed";
  nlohmann::json data = terminal.view.is_object() ? terminal.view : nlohmann::json::object();
  data["run"] = {{"id", terminal.run_id},
                 {"workflow", terminal.task.workflow},
                 {"state", state},
                 {"usage", outcome.usage.is_object() ? outcome.usage : nlohmann::json(nullptr)},
                 {"model_requests", outcome.model_requests},
                 {"degraded", outcome.degraded},
                 {"artifact_dir", outcome.artifact_dir}};
  if (!outcome.adaptive.is_null()) data["run"]["adaptive"] = outcome.adaptive;
  return data;
}

PrintedOutcome PrintModeOutcome(FileSystem& fs, const views::TerminalReport& terminal) {
  PrintedOutcome printed;
  if (terminal.outcome.end != run::RunEnd::kCompleted) {
    printed.stderr_lines.push_back(terminal.text);
    printed.failed = true;
    return printed;
  }
  // Print only what bg_result would verify: every byte checked against the manifest.
  Result<store::VerifiedResult> verified =
      store::VerifyCompletedRun(fs, terminal.outcome.artifact_dir, terminal.run_id);
  if (!verified.ok()) {
    printed.stderr_lines.push_back(verified.status().ToString());
    printed.failed = true;
    return printed;
  }
  printed.stdout_text = verified->merged;
  if (printed.stdout_text.empty() || printed.stdout_text.back() != '\n') {
    printed.stdout_text.push_back('\n');
  }
  // A run that answered from two candidates says so first.
  if (const std::string degraded =
          run::DegradedSentence(verified->details.value("degraded", nlohmann::json()));
      !degraded.empty()) {
    printed.stderr_lines.push_back(degraded);
  }
  // An adaptive run says how many candidates it asked.
  if (const std::string adaptive =
          run::AdaptiveSentence(verified->details.value("adaptive", nlohmann::json()));
      !adaptive.empty()) {
    printed.stderr_lines.push_back(adaptive);
  }
  // What the run cost, from the verified details: "Usage: 8 model requests · 1,234 tokens · $…".
  const std::string usage =
      views::RequestsAndUsageText(verified->details.value("model_requests", nlohmann::json()),
                                  verified->details.value("usage", nlohmann::json()),
                                  verified->details.value("estimate", nlohmann::json()));
  if (!usage.empty()) printed.stderr_lines.push_back("Usage: " + usage);
  if (std::string line = run::AgreementLine(verified->details.value("agreement", nlohmann::json()));
      !line.empty()) {
    printed.stderr_lines.push_back(std::move(line));
  }
  if (std::string line =
          run::OrderCheckLine(verified->details.value("order_check", nlohmann::json()));
      !line.empty()) {
    printed.stderr_lines.push_back(std::move(line));
  }
  if (std::string line =
          run::CheckedClaimsLine(verified->details.value("checked_claims", nlohmann::json()));
      !line.empty()) {
    printed.stderr_lines.push_back(std::move(line));
  }
  printed.stderr_lines.push_back("Artifacts: " + terminal.outcome.artifact_dir);
  for (const std::string& line : run::SourceWarningLines(verified->details)) {
    printed.stderr_lines.push_back(line);
  }
  return printed;
}

}  // namespace pi_fusion::host
