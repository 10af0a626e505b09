// A provider's error as a person reads it. A child that failed on its model ends with Pi's error
// text, which quotes the provider's reply body ("child ended with exit code 1: 500: {"message":
// …,"type":"api_error"}"); the views say it as one sentence — who answered, the HTTP status, the
// provider's message and its type — and leave the raw reply in the run's artifacts (error.json,
// the attempt's stderr). Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace pi_fusion::views {

// "scripted/scripted-a answered HTTP 500: Scripted internal server error (api_error)." for a
// `message` that carries a provider's JSON reply with a message, from route `route` ("" names
// "The provider"); nullopt when `message` carries no such reply (the caller shows it as it is).
std::optional<std::string> ProviderErrorSentence(std::string_view message, std::string_view route);

}  // namespace pi_fusion::views
