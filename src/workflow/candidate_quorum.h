// The candidate phase of a fail-fast workflow under the run's quorum (fusion-models.json's
// `policy`, docs/config.md): who may be missing, when the grace window ends, and what the phase
// ends with. The orchestrator only runs the children and the clock; every decision is here.
//
// Quorum 3 (the default) is fail fast: the first failure stops the siblings and fails the run.
// Quorum 2 accepts two verified answers: a candidate that fails in a way that says nothing about
// the run's integrity — a provider error after Pi's retries or a crash (child_exit_failed), a
// timeout, an execution limit (child_runtime_limit_exceeded), or its share of the cost cap spent
// (cost_cap_exceeded) — is left out, and a candidate
// still running when the grace window ends is cut (cancelled). Every other failure (a tool-call
// audit or seal failure, a protocol or output violation, a store error) and a second candidate
// lost stay fatal and stop the rest. A cancellation the run did not ask for (the person's) is the
// run's own end. A third answer that verifies before the phase ends is used, even after a cut.
//
// Validate keeps its own minority rule (validation_reviewers.h); quorum does not apply to it.
//
// CandidateQuorum is thread-safe; the functions are pure.
#pragma once

#include <array>
#include <mutex>
#include <optional>
#include <string>

#include "core/clock.h"
#include "pi_fusion/status.h"

namespace pi_fusion::workflow {

// True when a candidate child's own failure lets a quorum-2 run go on without it.
bool IsSurvivableCandidateFailure(const Status& status);

// How long a quorum-2 run waits for the third candidate once two verified: `grace_seconds` when
// set, else the larger of `floor_seconds` and half of `second_elapsed_seconds` (the second
// verified candidate's time from its start to its answer), in tenths of a second.
double GraceWindowSeconds(std::optional<double> grace_seconds, double floor_seconds,
                          double second_elapsed_seconds);

// The candidate a degraded run answered without.
struct MissingCandidate {
  enum class Reason { kFailed, kCutAfterGrace };
  int slot = 0;  // 1..3
  Reason reason = Reason::kFailed;
  std::string code;                     // kFailed: the child's error code; empty when cut
  std::optional<double> grace_seconds;  // kCutAfterGrace: the window it was given
};

// "failed" | "cut_after_grace": the degraded record's `reason`.
const char* MissingReasonName(MissingCandidate::Reason reason);

class CandidateQuorum {
 public:
  // REQUIRES: quorum is 2 or 3; grace_seconds, when set, >= 0.
  CandidateQuorum(int quorum, std::optional<double> grace_seconds, double grace_floor_seconds);

  // What the caller does after recording one candidate's end.
  enum class Next {
    kWait,        // keep waiting for the others
    kStopOthers,  // the run's fate is decided: cancel the candidates still running
    kStartGrace,  // two verified, one still running: wait at most grace_seconds() for it
  };

  // Records candidate `slot`'s end: ok when its answer verified, else its failure.
  // `elapsed_seconds` is its time from its start to its end. Each slot ends once. A `reused`
  // answer (a resumed run's, taken from the run it resumes) counts toward the quorum but never
  // starts the grace window by itself: no candidate ran for it, so it says nothing of how long
  // the running one needs. The window starts once two verified and one of them ran, from the
  // elapsed time of the last one that ran.
  Next Record(int slot, const Status& end, double elapsed_seconds, bool reused = false);

  // The grace window decided when Next::kStartGrace was returned; empty before.
  std::optional<double> grace_seconds() const;

  // The grace window ended: the candidate still running, if any, is cut and its slot returned (the
  // caller cancels it); 0 when none is running any more or the run's fate is already decided.
  int CutAfterGrace();

  // After every candidate ended.
  struct Failure {
    Status status;
    int slot = 0;
  };
  struct Outcome {
    std::optional<Failure> failure;           // the run fails (or is cancelled) with this
    std::optional<MissingCandidate> missing;  // set iff the run goes on with two answers
  };
  Outcome Finish() const;

  // True once the run's fate is decided by a failure (Finish's `failure` will be set).
  bool Failed() const;

 private:
  const int quorum_;
  const std::optional<double> configured_grace_;
  const double grace_floor_;
  mutable std::mutex mu_;
  std::array<std::optional<Status>, 3> ends_;  // guarded by mu_
  int verified_ = 0;                           // guarded by mu_
  std::optional<Failure> failure_;             // guarded by mu_
  std::optional<MissingCandidate> missing_;    // guarded by mu_ (a survivable failure or a cut)
  std::optional<Status> first_lost_;           // guarded by mu_: the survivable failure's status
  std::optional<double> grace_;                // guarded by mu_
  // The elapsed time of the last verified candidate that ran (not reused); guarded by mu_.
  std::optional<double> ran_elapsed_;
};

// now + `seconds`, saturated at the clock's end: a window too long for the clock's range never
// wraps into a deadline in the past. REQUIRES: seconds >= 0.
Clock::TimePoint GraceDeadline(Clock::TimePoint now, double seconds);

}  // namespace pi_fusion::workflow
