// The run's state machine and the small enums the manifest records.
//
//   initializing -> candidates_running -> candidates_complete -> evaluating
//     -> evaluation_complete -> merging -> completed
//   any non-terminal state -> failed | cancelled
//
// completed, failed and cancelled are terminal: nothing leaves them. Every other pair (a skip, a
// step back, a self-transition) is illegal. The extra rule that `completed` needs the committed
// result is RunStore's (run_store.h), because it depends on written artifacts.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "core/role.h"  // Stage: the stage an attempt and a terminal error belong to
#include "pi_fusion/status.h"

namespace pi_fusion::store {

enum class RunState {
  kInitializing,
  kCandidatesRunning,
  kCandidatesComplete,
  kEvaluating,
  kEvaluationComplete,
  kMerging,
  kCompleted,
  kFailed,
  kCancelled,
};
inline constexpr RunState kAllRunStates[] = {
    RunState::kInitializing,       RunState::kCandidatesRunning,
    RunState::kCandidatesComplete, RunState::kEvaluating,
    RunState::kEvaluationComplete, RunState::kMerging,
    RunState::kCompleted,          RunState::kFailed,
    RunState::kCancelled};

std::string_view RunStateName(RunState state);  // "candidates_running"
std::optional<RunState> ParseRunState(std::string_view name);
bool IsTerminal(RunState state);

// ok, or kStateTransitionInvalid "cannot move from <from> to <to>".
Status CheckTransition(RunState from, RunState to);

// How the run was launched: a public tool call or the /fusion command.
enum class RunSource { kCommand, kTool };
std::string_view RunSourceName(RunSource source);  // "command" | "tool"
std::optional<RunSource> ParseRunSource(std::string_view name);

// One child attempt's state. kRunning rows at a terminal run were interrupted.
enum class AttemptState { kRunning, kCompleted, kFailed, kCancelled };
std::string_view AttemptStateName(AttemptState state);  // "running" | "completed" | ...
std::optional<AttemptState> ParseAttemptState(std::string_view name);

}  // namespace pi_fusion::store
