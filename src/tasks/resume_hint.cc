#include "tasks/resume_hint.h"

#include "store/resumability.h"
#include "store/run_id.h"

namespace pi_fusion::tasks {

std::optional<ResumeHint> ResumeHintOf(const store::Manifest& m) {
  if (!store::CheckResumable(m).ok()) return std::nullopt;
  return ResumeHint{m.run_id, store::VerifiedCandidateSlots(m), store::EvaluationReusable(m)};
}

std::string ResumeCommand(std::string_view run_id) {
  return "/fusion-resume " + std::string(store::ShortRunId(run_id));
}

nlohmann::json ResumeHintJson(const ResumeHint& hint) {
  return {{"command", ResumeCommand(hint.run_id)},
          {"candidate_slots", hint.candidate_slots},
          {"evaluation", hint.evaluation}};
}

std::optional<ResumeHint> ResumeHintFromJson(std::string_view run_id, const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  const nlohmann::json slots = j.value("candidate_slots", nlohmann::json());
  if (!slots.is_array() || slots.empty()) return std::nullopt;
  ResumeHint hint{std::string(run_id), {}, j.value("evaluation", nlohmann::json()) == true};
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
