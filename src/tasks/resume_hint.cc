#include "tasks/resume_hint.h"

#include "core/error_codes.h"
#include "store/resumability.h"
#include "store/run_id.h"

namespace pi_fusion::tasks {

namespace {

// The failures that say the model (or its provider) failed, not the run, the host or the person.
bool FailedOnItsModel(const std::string& code) {
  return code == kChildExitFailed || code == kChildStalled || code == kChildTimeout ||
         code == kEvaluationInvalid;
}

}  // namespace

std::optional<Slot> FailedRouteOf(const store::Manifest& m) {
  if (!m.error || !m.error->stage || !FailedOnItsModel(m.error->code)) return std::nullopt;
  const int slot = m.error->slot.value_or(0);
  if (*m.error->stage == Stage::kCandidate && (slot < 1 || slot > 3)) return std::nullopt;
  return SlotOf(ChildRoleOf(*m.error->stage), slot);
}

std::optional<ResumeHint> ResumeHintOf(const store::Manifest& m) {
  if (!store::CheckResumable(m).ok()) return std::nullopt;
  return ResumeHint{m.run_id, store::VerifiedCandidateSlots(m), store::EvaluationReusable(m),
                    FailedRouteOf(m)};
}

std::string ResumeCommand(std::string_view run_id) {
  return "/fusion-resume " + std::string(store::ShortRunId(run_id));
}

nlohmann::json ResumeHintJson(const ResumeHint& hint) {
  nlohmann::json j = {{"command", ResumeCommand(hint.run_id)},
                      {"candidate_slots", hint.candidate_slots},
                      {"evaluation", hint.evaluation}};
  if (hint.failed_route) j["failed_route"] = SlotId(*hint.failed_route);
  return j;
}

std::optional<ResumeHint> ResumeHintFromJson(std::string_view run_id, const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const nlohmann::json slots = j.value("candidate_slots", nlohmann::json());
  if (!slots.is_array() || slots.empty()) return std::nullopt;
  ResumeHint hint{std::string(run_id), {}, j.value("evaluation", nlohmann::json()) == true, {}};
  const nlohmann::json failed = j.value("failed_route", nlohmann::json());
  if (failed.is_string()) hint.failed_route = kSlotIds.Parse(failed.get<std::string>());
  for (const nlohmann::json& slot : slots) {
    // The details come back from JavaScript, where every number is a double.
    if (!slot.is_number()) return std::nullopt;
    const double v = slot.get<double>();
    if (v != 1 && v != 2 && v != 3) return std::nullopt;
    hint.candidate_slots.push_back(static_cast<int>(v));
  }
  return hint;
}

}  // namespace pi_fusion::tasks
