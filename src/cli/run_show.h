// What `pi-fusion show` reads of one run and how it says so (docs/cli/show.md). Nothing of a run is
// shown until every artifact its manifest binds has been verified, as `verify` and bg_result verify
// it (tasks::ReadVerifiedAnswers, which /fusion-continue shares); the answers shown are the
// verified bytes.
//
// ReadRunShow reads through the FileSystem seam and writes nothing (no usage claim, no lock, no
// finalization of an interrupted run); everything else is pure. Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "store/manifest.h"
#include "tasks/resume_hint.h"
#include "tasks/verified_run.h"

namespace pi_fusion::cli {

// Exit statuses of `show`; 2, a usage error or a name that is no run, is run_lookup.h's.
inline constexpr int kShowAnswered = 0;    // a completed run's verified answer was shown
inline constexpr int kShowNoAnswer = 1;    // the run has no answer (yet): what exists was shown
inline constexpr int kShowUnverified = 3;  // an artifact failed verification: nothing was shown

// A verified candidate answer: slot, "provider/model", the bytes that verified and their ref.
using ShownCandidate = tasks::VerifiedCandidate;

struct RunShow {
  std::string run_id;        // the directory's name
  std::string workflow;      // "" when the manifest cannot be read
  std::string state;         // tasks::RunListing::State(): the manifest's, "interrupted", …
  std::string cancelled_by;  // who cancelled a cancelled run, when it recorded that
  std::optional<store::RunError> failure;  // the run's terminal error
  // What failed verification, each naming its artifact; empty when every one verified. When not
  // empty, nothing below is read.
  std::vector<std::string> problems;
  std::optional<std::string> answer;        // a completed run's verified merged answer
  std::vector<ShownCandidate> candidates;   // the verified candidate answers, by slot
  std::optional<tasks::ResumeHint> resume;  // how /fusion-resume takes the run up
  std::string resumed_as;                   // the completed run that resumed it, if one did
};

// The run in `run_dir`, verified first.
RunShow ReadRunShow(FileSystem& fs, const std::string& run_dir);

// What `show` prints on stdout (before NeutralizeControls): a completed run's answer alone, ending
// in a line end; with `with_candidates`, the answer and each candidate answer under a header line.
// A run without an answer: its state, its failure, its verified candidates and how to resume it
// (and, with `with_candidates`, those answers).
// REQUIRES: run.problems is empty.
std::string ShowText(const RunShow& run, bool with_candidates);

// What `show` prints on stderr for a run that failed verification: the error and every problem.
std::string UnverifiedText(const RunShow& run);

// `show --json`'s object (docs/cli/show.md lists its fields); `candidates` only with
// `with_candidates`.
nlohmann::json ShowJson(const RunShow& run, bool with_candidates);

// kShowUnverified, kShowAnswered or kShowNoAnswer.
int ShowExitCode(const RunShow& run);

}  // namespace pi_fusion::cli
