#include "store/run_state.h"

#include <string>

#include "core/name_table.h"
#include "store/constants.h"

namespace pi_fusion::store {
namespace {

constexpr NameTable<RunState, 9> kRunStates = {
    {RunState::kInitializing, RunState::kCandidatesRunning, RunState::kCandidatesComplete,
     RunState::kEvaluating, RunState::kEvaluationComplete, RunState::kMerging, RunState::kCompleted,
     RunState::kFailed, RunState::kCancelled},
    {"initializing", "candidates_running", "candidates_complete", "evaluating",
     "evaluation_complete", "merging", "completed", "failed", "cancelled"}};
constexpr NameTable<RunSource, 2> kSources = {{RunSource::kCommand, RunSource::kTool},
                                              {"command", "tool"}};
constexpr NameTable<AttemptState, 4> kAttemptStates = {
    {AttemptState::kRunning, AttemptState::kCompleted, AttemptState::kFailed,
     AttemptState::kCancelled},
    {"running", "completed", "failed", "cancelled"}};

// The forward path: each state's one legal successor besides failed/cancelled.
std::optional<RunState> NextOnPath(RunState state) {
  switch (state) {
    case RunState::kInitializing:
      return RunState::kCandidatesRunning;
    case RunState::kCandidatesRunning:
      return RunState::kCandidatesComplete;
    case RunState::kCandidatesComplete:
      return RunState::kEvaluating;
    case RunState::kEvaluating:
      return RunState::kEvaluationComplete;
    case RunState::kEvaluationComplete:
      return RunState::kMerging;
    case RunState::kMerging:
      return RunState::kCompleted;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::string_view RunStateName(RunState state) { return kRunStates.Name(state); }
std::optional<RunState> ParseRunState(std::string_view name) { return kRunStates.Parse(name); }

bool IsTerminal(RunState state) {
  return state == RunState::kCompleted || state == RunState::kFailed ||
         state == RunState::kCancelled;
}

Status CheckTransition(RunState from, RunState to) {
  const bool legal = !IsTerminal(from) && (to == RunState::kFailed || to == RunState::kCancelled ||
                                           NextOnPath(from) == to);
  if (legal) return Status::Ok();
  return Status::Error(kStateTransitionInvalid, "cannot move from " +
                                                    std::string(RunStateName(from)) + " to " +
                                                    std::string(RunStateName(to)));
}

std::string_view RunSourceName(RunSource source) { return kSources.Name(source); }
std::optional<RunSource> ParseRunSource(std::string_view name) { return kSources.Parse(name); }
std::string_view AttemptStateName(AttemptState state) { return kAttemptStates.Name(state); }
std::optional<AttemptState> ParseAttemptState(std::string_view name) {
  return kAttemptStates.Parse(name);
}

}  // namespace pi_fusion::store
