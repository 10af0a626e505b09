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
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

struct ProgressSnapshot {
  Stage stage = Stage::kPreflight;
  std::array<SlotState, 3> candidates{SlotState::kPending, SlotState::kPending,
                                      SlotState::kPending};
  SlotState evaluator = SlotState::kPending;
  SlotState merger = SlotState::kPending;
  int64_t started_ms = 0;  // wall clock, milliseconds since the epoch
  int64_t ended_ms = 0;    // 0 while the run is active
  std::string line;        // the newest progress text of the contract
  std::vector<std::string> warnings;

  int CandidatesIn(SlotState state) const;
  bool Active() const;
  int64_t ElapsedMs(int64_t now_ms) const;
};

class ProgressTracker {
 public:
  explicit ProgressTracker(int64_t started_ms) { snapshot_.started_ms = started_ms; }
  void Apply(const workflow::ProgressUpdate& update, int64_t now_ms);
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

// "candidates 1/3 done, 1 failed" / "evaluating" / "merging" / "completed"; no elapsed time.
std::string StageSummary(const ProgressSnapshot& snapshot);

// {schema_version, run_id, workflow, stage, line, candidates{total, done, failed, running, slots},
//  evaluator, merger, elapsed_ms, warnings}
nlohmann::json ProgressJson(const ProgressSnapshot& snapshot, std::string_view run_id,
                            std::string_view workflow, int64_t now_ms);

// The run's own status line: "fusion reason 1a2b3c4d: candidates 1/3 done, 1 failed · 0:42".
std::string StatusLine(const ProgressSnapshot& snapshot, std::string_view label,
                       std::string_view run_id, int64_t now_ms);

}  // namespace pi_fusion::tasks
