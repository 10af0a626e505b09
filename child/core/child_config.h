// Configuration of the companion child library, read once from the private environment the
// parent sets (the names: core/env_vars.h; docs/protocol.md, "Environment"):
//
//   PI_FUSION_CHILD_ROLE     candidate | evaluator | merger (required). Only candidates get the
//                            one same-session compression turn for an oversized answer.
//   PI_FUSION_OVERSIZE_PATH  absolute path where a candidate's oversized original is preserved
//                            (required for candidates, ignored otherwise).
//   PI_CACHE_RETENTION       Pi's own variable: none | short | long; unset or empty means Pi's
//                            default (short). Any other value is refused before transport.
//   PI_FUSION_TOOLS          the tools this child may run, comma-separated (tool-enabled
//                            candidates only). When set, the two paths below are required and
//                            every tool call is journaled; when unset the child runs no tool.
//   PI_FUSION_TOOL_JOURNAL   absolute path of the tool-call journal (created empty at load)
//   PI_FUSION_TOOL_SEAL      absolute path of the seal written at the terminal agent_settled
//   PI_FUSION_REQUEST_SIGNAL_FD  the number of an inherited pipe descriptor that gets one byte
//                            at the child's first provider request and is then closed (optional;
//                            candidates of a run that warms its evaluator and merger, which start
//                            once every candidate is past its own start-up)
//   PI_FUSION_COST_ALLOWANCE_USD  the US dollars this child may spend, in decimal (optional; set
//                            for every child of a run with a cost cap). Every provider request is
//                            admitted against it (cost_admission.h); unset: no admission.
//
// The execution limits are fixed (kMaxProviderRequests, kMaxToolCalls); nothing overrides them,
// except that an evaluator with tools (policy.evaluator_tools) has the budget
// kEvaluatorToolBudget and the limit kEvaluatorMaxToolCalls, fixed by its role.
// Pure code; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "child/core/file_wall.h"
#include "core/role.h"
#include "pi_fusion/status.h"
#include "protocol/constants.h"

namespace pi_fusion::child {

struct ChildConfig {
  Role role = Role::kEvaluator;
  std::string oversize_path;  // empty unless role == kCandidate
  // PI_CACHE_RETENTION as set (nullopt when unset or empty); validated per request, so a bad
  // value is refused with a runtime-guard frame rather than failing the extension load.
  std::optional<std::string> cache_retention;
  // The tool allowlist; empty for a child without tools (no journal then).
  std::vector<std::string> tools;
  std::string tool_journal_path;  // set exactly when `tools` is not empty
  std::string tool_seal_path;
  int request_signal_fd = -1;  // -1: no first-request signal
  // The child's share of the run's cost cap in US dollars; nullopt: the run has no cap.
  std::optional<double> cost_allowance_usd;
  // Pi's agent directory (PI_CODING_AGENT_DIR, else ~/.pi/agent), which file tools never read.
  std::string pi_agent_dir;
  // What the file tools' wall protects besides the built-in names. ReadChildConfig sets the agent
  // and home directories; the loader adds the rest (protected_places.h ResolveWallPlaces).
  WallPlaces wall_places;
  int64_t max_provider_requests = protocol::kMaxProviderRequests;
  int64_t max_tool_calls = protocol::kMaxToolCalls;
  // Tool calls past this many are refused, the model told to answer; nullopt: no budget.
  std::optional<int64_t> tool_budget;
  uint64_t max_tool_result_bytes = protocol::kMaxToolResultBytes;
};

// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Error code "config_invalid" for a missing or unknown role, a candidate without an absolute
// oversize path, a tool list without absolute journal and seal paths (or with an empty name), or
// a PI_FUSION_REQUEST_SIGNAL_FD that is not a descriptor number above stdio, or a
// PI_FUSION_COST_ALLOWANCE_USD that is not a plain decimal number of dollars (digits, at most one
// point).
Result<ChildConfig> ReadChildConfig(const EnvLookup& lookup);

// The process environment (getenv).
EnvLookup ProcessEnvLookup();

}  // namespace pi_fusion::child
