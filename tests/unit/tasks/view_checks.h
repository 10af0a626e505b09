// Checks shared by the view tests: what the model reads never leaks into what a person sees.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace pi_fusion::tasks::testing {

// True when a view carries text meant for the model (hashes, "Do not poll.").
inline bool MentionsModelText(const nlohmann::json& view) {
  const std::string dumped = view.dump();
  return dumped.find("sha256") != std::string::npos ||
         dumped.find("Do not poll") != std::string::npos;
}

}  // namespace pi_fusion::tasks::testing
