// The run state machine: every (from, to) pair of the nine states, legal or not.
#include <set>
#include <utility>

#include <catch2/catch.hpp>

#include "store/constants.h"
#include "store/run_state.h"

namespace {

using pi_fusion::store::RunState;
using S = RunState;

// The complete list of legal transitions; every other pair is state_transition_invalid.
const std::set<std::pair<S, S>>& LegalTransitions() {
  static const std::set<std::pair<S, S>> kLegal = {
      {S::kInitializing, S::kCandidatesRunning},
      {S::kCandidatesRunning, S::kCandidatesComplete},
      {S::kCandidatesComplete, S::kEvaluating},
      {S::kEvaluating, S::kEvaluationComplete},
      {S::kEvaluationComplete, S::kMerging},
      {S::kMerging, S::kCompleted},
      {S::kInitializing, S::kFailed},
      {S::kInitializing, S::kCancelled},
      {S::kCandidatesRunning, S::kFailed},
      {S::kCandidatesRunning, S::kCancelled},
      {S::kCandidatesComplete, S::kFailed},
      {S::kCandidatesComplete, S::kCancelled},
      {S::kEvaluating, S::kFailed},
      {S::kEvaluating, S::kCancelled},
      {S::kEvaluationComplete, S::kFailed},
      {S::kEvaluationComplete, S::kCancelled},
      {S::kMerging, S::kFailed},
      {S::kMerging, S::kCancelled},
  };
  return kLegal;
}

}  // namespace

TEST_CASE("RunState: every pair of states is legal exactly when the table says so", "[store]") {
  int legal = 0;
  for (S from : pi_fusion::store::kAllRunStates) {
    for (S to : pi_fusion::store::kAllRunStates) {
      INFO(pi_fusion::store::RunStateName(from) << " -> " << pi_fusion::store::RunStateName(to));
      const pi_fusion::Status s = pi_fusion::store::CheckTransition(from, to);
      if (LegalTransitions().count({from, to}) != 0) {
        CHECK(s.ok());
        ++legal;
      } else {
        CHECK(s.code() == pi_fusion::kStateTransitionInvalid);
        CHECK(s.message() == "cannot move from " +
                                 std::string(pi_fusion::store::RunStateName(from)) + " to " +
                                 std::string(pi_fusion::store::RunStateName(to)));
      }
    }
  }
  CHECK(legal == 18);
}

TEST_CASE("RunState: terminal states are exactly completed, failed and cancelled", "[store]") {
  for (S state : pi_fusion::store::kAllRunStates) {
    const bool terminal = state == S::kCompleted || state == S::kFailed || state == S::kCancelled;
    CHECK(pi_fusion::store::IsTerminal(state) == terminal);
  }
}

TEST_CASE("RunState: names round-trip and unknown names are refused", "[store]") {
  for (S state : pi_fusion::store::kAllRunStates) {
    CHECK(pi_fusion::store::ParseRunState(pi_fusion::store::RunStateName(state)) == state);
  }
  CHECK_FALSE(pi_fusion::store::ParseRunState("Completed"));
  CHECK_FALSE(pi_fusion::store::ParseRunState(""));
  CHECK(pi_fusion::ParseStage("evaluation") == pi_fusion::Stage::kEvaluation);
  CHECK_FALSE(pi_fusion::ParseStage("repair"));
  CHECK(pi_fusion::store::ParseRunSource("command") == pi_fusion::store::RunSource::kCommand);
  CHECK(pi_fusion::store::ParseAttemptState("cancelled") ==
        pi_fusion::store::AttemptState::kCancelled);
}
