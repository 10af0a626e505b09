#include "views/continue_texts.h"

#include <cctype>

#include "store/run_id.h"
#include "views/view_parts.h"

namespace pi_fusion::views {
namespace {

using nlohmann::json;

std::string ShortId(const tasks::ContinuedAnswer& answer) {
  return std::string(store::ShortRunId(answer.run_id));
}

// "candidate 2 (A) of Fusion run 1a2b3c4d"
std::string Which(const tasks::ContinuedAnswer& answer) {
  return AnswerName(answer) + " of Fusion run " + ShortId(answer);
}

}  // namespace

std::string AnswerName(const tasks::ContinuedAnswer& answer) {
  if (answer.merged) return "the merged answer";
  return "candidate " + std::to_string(answer.slot) +
         (answer.letter.empty() ? "" : " (" + answer.letter + ")");
}

std::string ContinueMessageText(const tasks::ContinuedAnswer& answer) {
  const std::string author =
      answer.merged ? "the merger " + answer.route.QualifiedId() : answer.route.QualifiedId();
  return "From Fusion run " + answer.run_id + " (" + answer.workflow + "): " + AnswerName(answer) +
         ", written by " + author + "; " + answer.ref.sha256 + " (" +
         std::to_string(answer.ref.byte_length) + " bytes, verified).\n\n" + answer.answer;
}

json ContinueDetails(const tasks::ContinuedAnswer& answer) {
  std::string name = AnswerName(answer);
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  const json view = {{"kind", "run"},
                     {"title", "Fusion " + ShortId(answer) + " · continued"},
                     {"state", "completed"},
                     {"status", name + " · " + answer.route.QualifiedId() + " · verified"},
                     {"answer", AnswerView(answer.answer, "")}};
  return {{"schema_version", kContinueDetailsSchema},
          {"run_id", answer.run_id},
          {"workflow", answer.workflow},
          {"selection", answer.merged ? "merged" : "candidate"},
          {"slot", answer.merged ? json(nullptr) : json(answer.slot)},
          {"letter", answer.letter.empty() ? json(nullptr) : json(answer.letter)},
          {"model", answer.route.QualifiedId()},
          {"byte_length", answer.ref.byte_length},
          {"sha256", answer.ref.sha256},
          {"view", view}};
}

std::string ContinueAddedText(const tasks::ContinuedAnswer& answer, bool suggest_model) {
  std::string text = "Added " + Which(answer) + " (" + answer.route.QualifiedId() +
                     ") to the conversation; the model reads it with your next prompt.";
  if (suggest_model) {
    text += " To go on with the model that wrote it: pi -c --model " + answer.route.QualifiedId();
  }
  return text;
}

std::string SwitchOfferTitle(const tasks::ContinuedAnswer& answer) {
  return "Switch Pi's model to " + answer.route.QualifiedId() + "?";
}

std::string SwitchOfferText(const tasks::ContinuedAnswer& answer) {
  return "It wrote " + Which(answer) + ", now in the conversation. Pi's next turns would run on " +
         "it instead of the current model.";
}

std::string SwitchedText(const tasks::ContinuedAnswer& answer) {
  return "Pi's model is now " + answer.route.QualifiedId() + ".";
}

std::string SwitchFailedText(const tasks::ContinuedAnswer& answer) {
  return "Pi did not switch to " + answer.route.QualifiedId() +
         " (it has no usable credentials for it now); the model is unchanged.";
}

}  // namespace pi_fusion::views
