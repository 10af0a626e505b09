// The host binding's decisions, from plain values: settle holds, shutdown sources, where a run's
// end is shown and how the agent is woken, and what print mode writes.
#include "host/host_events.h"

#include <catch2/catch.hpp>

#include "test_support.h"

using namespace pi_fusion;
using namespace pi_fusion::tasks;
using pi_fusion::views::TerminalReport;
using namespace pi_fusion::host;

namespace {

constexpr char kRun[] = "reason-0123456789abcdef0123456789abcdef";

TerminalReport Ended(run::RunEnd end, const std::string& source,
                     CancelSource cancelled_by = CancelSource::kUnknown) {
  TerminalReport t;
  t.outcome.end = end;
  t.run_id = kRun;
  t.text = "Fusion reason ended";
  t.task.id = kRun;
  t.task.source = source;
  t.task.cancelled_by = cancelled_by;
  return t;
}

}  // namespace

TEST_CASE("DecideSettle: only a session without UI is held; an aborted agent_settled releases") {
  using enum SettleAction;
  CHECK(DecideSettle(SettleHook::kBeforeSettle, true, false) == kNothing);
  CHECK(DecideSettle(SettleHook::kSettled, true, true) == kNothing);
  CHECK(DecideSettle(SettleHook::kBeforeSettle, false, false) == kHold);
  CHECK(DecideSettle(SettleHook::kSettled, false, false) == kHold);
  CHECK(DecideSettle(SettleHook::kSettled, false, true) == kReleaseWoken);
  // agent_before_settle carries no abort flag worth obeying: Pi skips it for aborted agents.
  CHECK(DecideSettle(SettleHook::kBeforeSettle, false, true) == kHold);
}

TEST_CASE("ShutdownCancelSource: each session_shutdown reason names who cancelled") {
  for (const bool after_signal : {false, true}) {
    CHECK(ShutdownCancelSource("reload", after_signal) == CancelSource::kReload);
    CHECK(ShutdownCancelSource("new", after_signal) == CancelSource::kNewSession);
    CHECK(ShutdownCancelSource("resume", after_signal) == CancelSource::kResume);
    CHECK(ShutdownCancelSource("fork", after_signal) == CancelSource::kFork);
    CHECK(ShutdownCancelSource("", after_signal) == CancelSource::kUnknown);
    CHECK(ShutdownCancelSource("Quit", after_signal) == CancelSource::kUnknown);
  }
  CHECK(ShutdownCancelSource("quit", false) == CancelSource::kQuit);
  // Print, json and RPC modes quit on SIGTERM or SIGHUP: the signal is who asked.
  CHECK(ShutdownCancelSource("quit", true) == CancelSource::kSignal);
}

TEST_CASE("RouteTerminal: where each mode shows a run's end and how the agent is woken") {
  struct Row {
    const char* mode;
    bool can_render;
    bool wake_agent;
    const char* source;
    bool append_entry;
    Notify notify;
    Wake wake;
  };
  using enum Notify;
  using enum Wake;
  const Row rows[] = {
      // Tool launches wake the agent: a follow-up where someone watches, at settle otherwise.
      {"tui", true, true, "tool", false, kNever, kFollowUp},
      {"tui", false, true, "tool", false, kUnlessEntryShown, kFollowUp},
      {"rpc", true, true, "tool", false, kAlways, kFollowUp},
      {"print", false, true, "tool", false, kNever, kAtSettle},
      {"json", false, true, "tool", false, kNever, kAtSettle},
      // /fusion runs show an entry (rendered in the TUI only with the render module), wake no one.
      {"tui", true, false, "command", true, kUnlessEntryShown, kNone},
      {"tui", false, false, "command", false, kUnlessEntryShown, kNone},
      {"rpc", false, false, "command", true, kAlways, kNone},
      {"json", false, false, "command", true, kNever, kNone},
      {"print", false, false, "command", false, kNever, kNone},
  };
  for (const Row& row : rows) {
    INFO(row.mode << " render=" << row.can_render << " wake=" << row.wake_agent << " "
                  << row.source);
    const TerminalRoute route = RouteTerminal({row.mode, row.can_render, row.wake_agent},
                                              Ended(run::RunEnd::kCompleted, row.source));
    CHECK(route.append_entry == row.append_entry);
    CHECK(route.notify == row.notify);
    CHECK(route.wake == row.wake);
    CHECK(route.notify_level == "info");
  }
}

TEST_CASE("RouteTerminal: a failure notifies as an error; the agent's own bg_kill wakes nobody") {
  const TerminalRoute failed =
      RouteTerminal({"tui", false, true}, Ended(run::RunEnd::kFailed, "tool"));
  CHECK(failed.notify_level == "error");
  CHECK(failed.wake == Wake::kFollowUp);
  const TerminalRoute killed = RouteTerminal(
      {"tui", false, true}, Ended(run::RunEnd::kCancelled, "tool", CancelSource::kBgKill));
  CHECK(killed.wake == Wake::kNone);
  CHECK(killed.notify == Notify::kUnlessEntryShown);
  const TerminalRoute quit = RouteTerminal(
      {"print", false, true}, Ended(run::RunEnd::kCancelled, "tool", CancelSource::kQuit));
  CHECK(quit.wake == Wake::kAtSettle);
}

TEST_CASE("RouteTerminal: while Pi quits no turn follows; print and json say it on stderr") {
  const TerminalReport cancelled = Ended(run::RunEnd::kCancelled, "tool", CancelSource::kSignal);
  for (const char* mode : {"print", "json"}) {
    CHECK(RouteTerminal({mode, false, true, true}, cancelled).wake == Wake::kStderr);
  }
  for (const char* mode : {"tui", "rpc"}) {
    const TerminalRoute route = RouteTerminal({mode, true, true, true}, cancelled);
    CHECK(route.wake == Wake::kNone);
    CHECK(route.notify != Notify::kNever);  // whoever watches still learns of the end
  }
  // A /fusion run has its own print-mode output and wakes no one anyway.
  CHECK(RouteTerminal({"print", false, false, true}, Ended(run::RunEnd::kCancelled, "command"))
            .wake == Wake::kNone);
}

TEST_CASE("RunEntryData: the view plus the run's typed facts") {
  TerminalReport t = Ended(run::RunEnd::kCancelled, "command");
  t.task.workflow = "reason";
  t.view = {{"kind", "run"}, {"usage", "14 tokens · $0.0001"}};
  t.outcome.artifact_dir = "/p/.pi/fusion/s-1/" + std::string(kRun);
  t.outcome.usage = {{"totalTokens", 14}, {"cost", {{"total", 0.0001}}}};
  t.outcome.model_requests = 3;
  const nlohmann::json data = RunEntryData(t);
  CHECK(data["kind"] == "run");
  CHECK(data["usage"] == "14 tokens · $0.0001");  // the display string stays for the renderer
  CHECK(data["run"] == nlohmann::json{{"id", kRun},
                                      {"workflow", "reason"},
                                      {"state", "cancelled"},
                                      {"usage", t.outcome.usage},
                                      {"model_requests", 3},
                                      {"degraded", nullptr},
                                      {"artifact_dir", t.outcome.artifact_dir}});
  // A run that answered from two candidates carries its degraded record as a typed fact.
  t.outcome.degraded = {{"slot", 3}, {"reason", "failed"}};
  CHECK(RunEntryData(t)["run"]["degraded"] == t.outcome.degraded);
  t.outcome.end = run::RunEnd::kFailed;
  t.outcome.usage = nullptr;
  CHECK(RunEntryData(t)["run"]["state"] == "failed");
  CHECK(RunEntryData(t)["run"]["usage"].is_null());
}

TEST_CASE("PrintModeOutcome: a failure goes to stderr with a failing exit, never to stdout") {
  store::testing::TempDir dir;
  const PrintedOutcome failed =
      PrintModeOutcome(PosixFileSystem(), Ended(run::RunEnd::kFailed, "command"));
  CHECK(failed.failed);
  CHECK(failed.stdout_text.empty());
  CHECK(failed.stderr_lines == std::vector<std::string>{"Fusion reason ended"});

  // A completed run whose artifacts do not verify prints nothing on stdout either.
  TerminalReport gone = Ended(run::RunEnd::kCompleted, "command");
  gone.outcome.artifact_dir = dir.path() + "/" + kRun;
  const PrintedOutcome unverified = PrintModeOutcome(PosixFileSystem(), gone);
  CHECK(unverified.failed);
  CHECK(unverified.stdout_text.empty());
  REQUIRE(unverified.stderr_lines.size() == 1);
  CHECK(unverified.stderr_lines[0] != gone.text);
}
