#include "run/degraded_text.h"

#include "config/models_config.h"
#include "core/terminal_text.h"
#include "run/source_failures.h"

namespace pi_fusion::run {

std::string DegradedSentence(const nlohmann::json& degraded) {
  if (!degraded.is_object()) return "";
  const nlohmann::json slot = degraded.value("slot", nlohmann::json());
  const nlohmann::json model = degraded.value("model", nlohmann::json());
  const std::string reason = degraded.value("reason", std::string());
  if (!slot.is_number_integer() || !model.is_string()) return "";
  std::string why;
  if (reason == "failed") {
    const nlohmann::json code = degraded.value("code", nlohmann::json());
    why = "failed (" + (code.is_string() ? code.get<std::string>() : std::string("unknown")) + ")";
  } else if (reason == "cut_after_grace") {
    const nlohmann::json grace = degraded.value("grace_seconds", nlohmann::json());
    why = "was cut after a grace of " +
          (grace.is_number() ? config::PolicyNumberText(grace.get<double>()) : std::string("?")) +
          " s";
  } else {
    return "";
  }
  return "Degraded: answered from 2 of 3 candidates; candidate " +
         std::to_string(slot.get<int64_t>()) + " (" +
         NeutralizeControls(model.get<std::string>(), TextShape::kSingleLine) + ") " +
         NeutralizeControls(why, TextShape::kSingleLine) + ".";
}

std::string DegradedStatus(const nlohmann::json& degraded) {
  return DegradedSentence(degraded).empty() ? "" : "degraded (2 of 3 candidates)";
}

std::string AnswerNote(const nlohmann::json& degraded, const nlohmann::json& source_report) {
  const std::string lacks = DegradedStatus(degraded);
  const std::string sources = SourceWarningStatus(source_report);
  if (lacks.empty() || sources.empty()) return lacks + sources;
  return lacks + "; " + sources;
}

}  // namespace pi_fusion::run
