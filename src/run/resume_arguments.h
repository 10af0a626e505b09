// The arguments of /fusion-resume: the run to resume and, for the slots whose answers did not
// verify, other routes to try (`--slot 3=provider/model`, `--slot evaluator=provider/model`).
//
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"
#include "run/run_request.h"

namespace pi_fusion::run {

struct ResumeArguments {
  std::string query;             // the run id, prefix or short id; empty: the picker
  std::vector<RouteSwap> swaps;  // at most one per slot, in the order given
  // "@<panel>": every slot that did not verify takes that panel's route (--slot still wins).
  std::string panel;
};

// "<run> [--slot N=provider/model]… [@<panel>]" where N is 1, 2, 3, evaluator or merger (or a slot
// id such as candidate-2) and the route names a model ("provider/model") or "$current".
// invalid_arguments with the usage for anything else: an unknown option, a second run, a slot named
// twice, a route without its provider, or --slot without a run.
Result<ResumeArguments> ParseResumeArguments(std::string_view text);

// "1", "2", "3", "evaluator", "merger", or a slot id ("candidate-2"); nullopt otherwise.
std::optional<Slot> ParseSwapSlot(std::string_view name);

// "3", "evaluator": how a slot is named in --slot (and in the texts that suggest it).
std::string SwapSlotName(Slot slot);

// "/fusion-resume <run id or prefix> [--slot N=provider/model …]".
inline constexpr char kResumeUsage[] =
    "/fusion-resume <run id or prefix> [--slot N=provider/model …] [@<panel>] (N: 1, 2, 3, "
    "evaluator or merger; only for a slot whose answer did not verify; @<panel> takes a named "
    "panel's routes for all of them)";

}  // namespace pi_fusion::run
