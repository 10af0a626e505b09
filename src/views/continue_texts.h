// What /fusion-continue says: the message that carries the chosen answer into the conversation
// (its content, written for the model, and the person's view of it in the TUI), the offer to
// switch Pi's model to the route that wrote it, and the notices around them.
//
// The message's content is the answer's verified bytes under one header line; only the person's
// view (rendered through renderers.cc) has its terminal controls neutralized. Pure; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "tasks/continue_choice.h"

namespace pi_fusion::views {

// The custom message type Pi sends to the model as a user message (and keeps in the session).
inline constexpr char kContinueMessageType[] = "fusion-continue";
inline constexpr char kContinueDetailsSchema[] = "pi-fusion.continue.v1";

inline constexpr char kFusionContinueCommandDescription[] =
    "Continue the conversation with one verified answer of a Fusion run: /fusion-continue <run id "
    "or prefix> <1-3 | A-C | merged>";

// "candidate 2 (A)", "candidate 2" (a run without letters) or "the merged answer".
std::string AnswerName(const tasks::ContinuedAnswer& answer);

// The header line, then a blank line, then the answer:
// "From Fusion run reason-… (reason): candidate 2 (A), written by p/m; sha256:… (N bytes,
// verified)." ("…: the merged answer, written by the merger p/m; …").
std::string ContinueMessageText(const tasks::ContinuedAnswer& answer);

// The message's details: {schema_version, run_id, workflow, selection ("candidate"|"merged"),
// slot (null for merged), letter (null without one), model, byte_length, sha256, view}, where
// `view` is the person's run view (views/run_view.h shape): the answer under a title naming the
// run, the answer and its model.
nlohmann::json ContinueDetails(const tasks::ContinuedAnswer& answer);

// The person's notice once the message is in the conversation (print mode writes it to stderr):
// "Added candidate 2 (A) of Fusion run 1a2b3c4d (p/m) to the conversation; the model reads it
// with your next prompt." plus, when `suggest_model`, how to go on on its model
// ("pi -c --model p/m").
std::string ContinueAddedText(const tasks::ContinuedAnswer& answer, bool suggest_model);

// The TUI's offer to switch Pi's model to the candidate's route.
std::string SwitchOfferTitle(const tasks::ContinuedAnswer& answer);
std::string SwitchOfferText(const tasks::ContinuedAnswer& answer);
// After the offer was taken: the model is now the route, or Pi refused to switch.
std::string SwitchedText(const tasks::ContinuedAnswer& answer);
std::string SwitchFailedText(const tasks::ContinuedAnswer& answer);

}  // namespace pi_fusion::views
