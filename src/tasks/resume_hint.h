// Whether an ended run can be resumed with /fusion-resume, as the run's record carries it (the
// sentences every view of a failed or cancelled run says it with: views/resume_texts.h). A run is
// resumable when store::CheckResumable says so:
// failed or cancelled (host_ended included) with at least one verified candidate answer. The
// verified slots come from store::VerifiedCandidateSlots of the run's manifest, never from a
// view's own reading of the attempts.
//
// Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/role.h"
#include "store/manifest.h"

namespace pi_fusion::tasks {

struct ResumeHint {
  std::string run_id;
  std::vector<int> candidate_slots;  // the verified candidates a resume reuses, ascending
  bool evaluation = false;           // its evaluation is reused too (all three verified)
  // The route whose child failed the run on its model (a provider error after Pi's retries, a
  // crash, a stall, a timeout, an unusable verdict), which a resume may run on another model
  // (/fusion-resume --slot); nullopt when the run ended otherwise.
  std::optional<Slot> failed_route;
};

// The hint of a run whose manifest is `m`; nullopt when store::CheckResumable refuses it (a
// completed or running run, or one without a verified candidate answer).
std::optional<ResumeHint> ResumeHintOf(const store::Manifest& m);

// "/fusion-resume ac1705e2": the command with the short id the views show.
std::string ResumeCommand(std::string_view run_id);

// The route whose child failed run `m` on its model (ResumeHint::failed_route).
std::optional<Slot> FailedRouteOf(const store::Manifest& m);

// {command, candidate_slots, evaluation, failed_route?}: what a view's data carries (bg_result's
// details, the run view of a failed run), so a renderer can say it without reading the run
// directory.
nlohmann::json ResumeHintJson(const ResumeHint& hint);
// Back from that object for run `run_id`; nullopt for anything of another shape or without a
// verified slot.
std::optional<ResumeHint> ResumeHintFromJson(std::string_view run_id, const nlohmann::json& j);

}  // namespace pi_fusion::tasks
