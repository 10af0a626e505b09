// The expansion of a finished run the person opens with Pi's expand key: what each candidate
// answered and looked at, what the evaluator found, what each role cost, and where the artifacts
// are. Merged into a run view (run_view.h) by the binding.
//
// Reads the run directory through the FileSystem seam; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/file_system.h"

namespace pi_fusion::views {

// {candidates?, roles?, agreements?, conflicts?, order_check?, checked_claims?, citations?,
// artifacts}: the candidates A/B/C in slot order (a run that ended before its evaluation drew no
// letters: each candidate that answered, by its slot) with their models, verified answers and (for
// the tool-using workflows) the tool calls each made (run/tool_call_list.h) — a letter without an
// answer says why: "(not asked: candidates 1 and 2 agreed)" for the candidate an adaptive run
// skipped, "(no verified answer)" otherwise — the evaluator's agreements and conflicts with
// resolutions, the order check's outcome per conflict (policy.order_check; one {text, stable} row
// each: its topic from the evaluation the manifest still binds, or "conflict 1", whether it held
// under reordering and the candidate each pass favoured), the evaluator's checked claims one line
// each (policy.evaluator_tools; run/judgment_text.h CheckedClaimLines), the manifest's broken
// citations one line each (run/judgment_text.h BrokenCitationLines), the usage and cost per role
// (RoleUsageLines), and the artifact directory, or a note that the artifacts (or some of them)
// are gone.
nlohmann::json ExpandRun(FileSystem& fs, const std::string& run_dir);

// bg_result's expanded view of run `run_id`: the expansion's artifacts, and in place of the
// candidates, evaluation and cost by role (the run's own block shows them: its end entry, or the
// wake message of a tool launch) a note saying where they are, `pi-fusion show` included for a run
// whose block is in another session. Each candidate is then shown once in a transcript.
nlohmann::json ReadBackExpansion(nlohmann::json expansion, const std::string& run_id);

// Drops from an expansion the candidates without a verified answer (a run that did not complete
// shows only what it verified), and the candidates key when none is left.
void KeepVerifiedCandidates(nlohmann::json& expansion);

}  // namespace pi_fusion::views
