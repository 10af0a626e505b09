// The cause of a cancellation, as a run records it. A cancellation names who asked
// (process::CancelToken::cause, given by the task registry: "quitting Pi", "bg_kill", …); the run
// writes it into its terminal error's message ("cancelled by quitting Pi") in error.json and the
// manifest, so the cause outlives the Pi process that saw it: a later Pi, `pi-fusion runs` and
// every view read it back from there (tasks::CancelSourceOfMessage). No schema field is needed,
// and runs written before this (message "child cancelled") stay readable: their cause is unknown.
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace pi_fusion::run {

inline constexpr std::string_view kCancelledByPrefix = "cancelled by ";

// "cancelled by <cause>".
inline std::string CancelledByMessage(std::string_view cause) {
  return std::string(kCancelledByPrefix) + std::string(cause);
}

}  // namespace pi_fusion::run
