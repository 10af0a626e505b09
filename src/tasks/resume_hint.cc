#include "tasks/resume_hint.h"

#include "store/resumability.h"
#include "store/run_id.h"

namespace pi_fusion::tasks {
namespace {

// "its 2 verified candidate answers", "its verified candidate answer", "its 3 verified candidate
// answers and its evaluation".
std::string WhatItReuses(const ResumeHint& hint) {
  const size_t n = hint.candidate_slots.size();
  std::string what = n == 1 ? "its verified candidate answer"
                            : "its " + std::to_string(n) + " verified candidate answers";
  if (hint.evaluation) what += " and its evaluation";
  return what;
}

}  // namespace

std::optional<ResumeHint> ResumeHintOf(const store::Manifest& m) {
  if (!store::CheckResumable(m).ok()) return std::nullopt;
  return ResumeHint{m.run_id, store::VerifiedCandidateSlots(m), store::EvaluationReusable(m)};
}

std::string ResumeCommand(std::string_view run_id) {
  return "/fusion-resume " + std::string(store::ShortRunId(run_id));
}

std::string PersonResumeText(const ResumeHint& hint) {
  return "Resumable: " + ResumeCommand(hint.run_id) + " runs only what is missing, reusing " +
         WhatItReuses(hint) + ".";
}

std::string AgentResumeText(const ResumeHint& hint) {
  return "Resumable: the person can resume this run with " + ResumeCommand(hint.run_id) +
         ", which runs only what is missing, reusing " + WhatItReuses(hint) +
         ". Suggest that to them rather than starting the run again; resuming is their decision.";
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
