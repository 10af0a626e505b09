// What the person reads of an active run before it ends: each candidate whose answer verified
// ("landed"), as soon as it did. The TUI lists them in the run's live view under its progress line
// (an answer expands with Pi's expand key), print and json mode write a stderr line per landed
// candidate, and json mode also gets one `fusion-candidate` entry carrying the answer. None of
// it reaches the agent: it is never a message, and the evaluator and merger get the candidates
// exactly as before.
//
// The live view's shape (extensions/fusion-render.ts draws it):
//   {kind:"live", runs:[{line, about, candidates:[{slot, name, model, note, markdown}]}], hint}
//
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/run_request.h"
#include "tasks/task_registry.h"

namespace pi_fusion::views {

// The display-only entry type of a landed candidate (json mode).
inline constexpr char kCandidateEntryType[] = "fusion-candidate";

struct LandedReport {
  std::string run_id;
  std::string workflow;
  std::string label;  // "fusion reason"
  run::LandedCandidate candidate;
};

// "0:12 · 1,234 bytes" and " · 3 tool calls" for a tool-using candidate.
std::string LandedFacts(const run::LandedCandidate& candidate);

// The stderr line of print and json mode:
// "fusion reason 1a2b3c4d: candidate 1 landed · scripted/scripted-a · 0:12 · 1,234 bytes".
std::string LandedLine(const LandedReport& report);

// The `fusion-candidate` entry's data: {run{id, workflow}, slot, model, elapsed_ms, bytes,
// tool_calls (null unless tool-using), artifact, reused_from (the resumed run's id, or null),
// answer (the verified bytes)}.
nlohmann::json LandedEntryData(const LandedReport& report);

// One active run in the live view: its status line (tasks/progress.h StatusLine), what the
// launch notice said of it (`about`: "Run <id>", "Artifacts: <dir>" and the estimate's line,
// drawn when expanded) and its landed candidates in slot order, each {slot, name: "Candidate 1",
// model, note: LandedFacts, markdown}.
nlohmann::json LiveRunView(const tasks::TaskInfo& task, const std::vector<LandedReport>& landed,
                           int64_t now_ms);

// The one-line form of a landed candidate for a plain (string) widget:
// "  ✓ Candidate 1 scripted/scripted-a · 0:12 · 1,234 bytes".
std::string LandedRow(const run::LandedCandidate& candidate);

}  // namespace pi_fusion::views
