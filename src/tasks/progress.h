// The live progress of one Fusion run, built from the orchestrator's structured updates: stage,
// the three candidates (done, failed, running), evaluator and merger, and elapsed time. It is
// what bg_status reports (`pi-background-tasks.fusion-progress.v1`) and what the person reads in
// the run's own status line. A failed candidate is never counted as complete.
//
// Pure value types; ProgressTracker is thread-compatible (the registry guards it).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/role.h"
#include "run/run_request.h"

namespace pi_fusion::tasks {

inline constexpr char kProgressSchema[] = "pi-background-tasks.fusion-progress.v1";

// Who or what asked for a run's cancellation (said in every cancellation notice).
enum class CancelSource { kUnknown, kBgKill, kReload, kQuit, kNewSession, kResume, kFork, kSignal };

// Who or what asked for a cancellation, as said to the person: "bg_kill", "/reload",
// "quitting Pi", "/new", "/resume", "/fork", "a signal to Pi"; "" for kUnknown.
std::string CancelSourceText(CancelSource source);
// The same text as a static string for process::CancelToken::Cancel; nullptr for kUnknown.
const char* CancelSourceCause(CancelSource source);
// The source a run recorded in its terminal error's message (run/cancel_cause.h: "cancelled by
// quitting Pi", possibly followed by more words); kUnknown for any other message, such as an older
// run's "child cancelled".
CancelSource CancelSourceOfMessage(std::string_view message);
// The source whose CancelSourceText is exactly `cause` (a manifest's error.cancelled_by); kUnknown
// for any other text.
CancelSource CancelSourceOfCause(std::string_view cause);
// "cancelled by quitting Pi", or "cancelled" when the source is unknown: the one phrase every
// view uses for the state (never "killed", the contract's word in tool details).
std::string CancelledText(CancelSource source);

enum class SlotState { kPending, kRunning, kDone, kFailed, kCancelled, kSkipped };
// "pending" | "running" | "done" | "failed" | "cancelled" | "skipped"
std::string_view SlotStateName(SlotState state);

enum class Stage {
  kPreflight,
  kCandidates,
  kEvaluation,
  kRepair,
  kMerge,
  kCompleted,
  kFailed,
  kCancelled
};
// "preflight" | "candidates" | "evaluation" | "repair" | "merge" | "completed" | "failed" |
// "cancelled"
std::string_view StageName(Stage stage);

// Signs of life of one stage child while it runs (run::ChildActivity): 0 until it started.
struct ChildLife {
  int64_t last_output_ms = 0;         // wall clock: its last byte on stdout or stderr, or its start
  std::optional<int64_t> tool_calls;  // tool-using children: calls finished so far
  int64_t tools_running = 0;          // tool-using children: calls started, not yet finished
  bool pooled = false;                // a warm pooled process runs it (policy.keep_warm_seconds)
};

struct ProgressSnapshot {
  Stage stage = Stage::kPreflight;
  std::array<SlotState, 3> candidates{SlotState::kPending, SlotState::kPending,
                                      SlotState::kPending};
  SlotState evaluator = SlotState::kPending;
  SlotState merger = SlotState::kPending;
  std::array<ChildLife, 3> candidate_life;
  ChildLife evaluator_life;  // the evaluator, then its repair
  ChildLife merger_life;
  int64_t started_ms = 0;  // wall clock, milliseconds since the epoch
  int64_t ended_ms = 0;    // 0 while the run is active
  // When quorum 2's grace window for the third candidate ends (wall clock); 0 when none started.
  int64_t grace_ends_ms = 0;
  std::string line;  // the newest progress text of the contract
  std::vector<std::string> warnings;

  int CandidatesIn(SlotState state) const;
  bool Active() const;
  int64_t ElapsedMs(int64_t now_ms) const;
};

class ProgressTracker {
 public:
  explicit ProgressTracker(int64_t started_ms) { snapshot_.started_ms = started_ms; }
  void Apply(const run::ProgressUpdate& update, int64_t now_ms);
  // Records a running child's sign of life; nothing once the run has ended.
  void Note(const run::ChildActivity& activity);
  const ProgressSnapshot& snapshot() const { return snapshot_; }

 private:
  void End(Stage stage, SlotState running_becomes, int64_t now_ms);
  ProgressSnapshot snapshot_;
};

inline int64_t ToEpochMs(std::chrono::system_clock::time_point when) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count();
}

// "0:07", "1:04", "1:02:03".
std::string FormatElapsed(int64_t elapsed_ms);

// A running child and its signs of life, in slot order, then the evaluator, then the merger.
struct RunningChild {
  std::string name;              // "candidate 2", "evaluator", "merger"
  Role role = Role::kCandidate;  // candidate, evaluator (its repair too) or merger
  int slot = 0;                  // candidates; 0 otherwise
  ChildLife life;
};
// Only children that are running and have reported their start.
std::vector<RunningChild> RunningChildren(const ProgressSnapshot& snapshot);

// Time since a child's last output: "0s", "41s", "2m 05s", "1h 02m" (never negative).
std::string FormatSince(int64_t since_ms);

// "last output 3s ago (4 tool calls)" for one running child (the count only for tool users; a call
// in flight counts, and is named: "(2 tool calls, 1 running)").
std::string ChildLifeText(const ChildLife& life, int64_t now_ms);

// "last output: candidate 2 3s ago, candidate 3 41s ago (2 tool calls)"; "" when no running
// child has reported yet.
std::string ActivitySummary(const ProgressSnapshot& snapshot, int64_t now_ms);

// "candidates 1/3 done, 1 failed" / "evaluating" / "merging" / "completed"; no elapsed time.
std::string StageSummary(const ProgressSnapshot& snapshot);

// {schema_version, run_id, workflow, stage, line, candidates{total, done, failed, running, slots},
//  evaluator, merger, elapsed_ms, warnings,
//  activity[{role, slot, since_output_ms, tool_calls, tools_running}]}
// (`activity`: the running children that reported; slot, tool_calls and tools_running null where
// they do not apply; tool_calls counts the running ones too.)
nlohmann::json ProgressJson(const ProgressSnapshot& snapshot, std::string_view run_id,
                            std::string_view workflow, int64_t now_ms);

// While the candidates wait in quorum 2's grace window: "grace 12s left" (FormatSince of what is
// left); "" otherwise.
std::string GraceCountdown(const ProgressSnapshot& snapshot, int64_t now_ms);

// The run's own status line: "fusion reason 1a2b3c4d: candidates 1/3 done, 1 failed · 0:42",
// then " · " and the GraceCountdown while the grace window runs, then " · " and the
// ActivitySummary while a running child has reported.
std::string StatusLine(const ProgressSnapshot& snapshot, std::string_view label,
                       std::string_view run_id, int64_t now_ms);

// Print and json mode's progress line on stderr, in the TUI's words: the status line without its
// activity ("fusion reason 1a2b3c4d: candidates 1/3 done · 0:42"), then " · " and the event's own
// line when it says more than the stage does ("… · candidate 2 failed (child_timeout)").
std::string PlainProgressLine(const ProgressSnapshot& snapshot, std::string_view label,
                              std::string_view run_id, int64_t now_ms,
                              const run::ProgressUpdate& update);

}  // namespace pi_fusion::tasks
