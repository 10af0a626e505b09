// Configuration of the companion child library, read once from the private environment the
// parent sets (docs/protocol.md, "Environment"):
//
//   PI_FUSION_CHILD_ROLE     candidate | evaluator | merger (required). Only candidates get the
//                            one same-session compression turn for an oversized answer.
//   PI_FUSION_OVERSIZE_PATH  absolute path where a candidate's oversized original is preserved
//                            (required for candidates, ignored otherwise).
//   PI_CACHE_RETENTION       Pi's own variable: none | short | long; unset or empty means Pi's
//                            default (short). Any other value is refused before transport.
//
// The execution limits are fixed (kMaxProviderRequests, kMaxToolCalls); nothing overrides them.
// Pure code; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "pi_fusion/status.h"
#include "protocol/constants.h"

namespace pi_fusion::child {

enum class ChildRole { kCandidate, kEvaluator, kMerger };

struct ChildConfig {
  ChildRole role = ChildRole::kEvaluator;
  std::string oversize_path;  // empty unless role == kCandidate
  // PI_CACHE_RETENTION as set (nullopt when unset or empty); validated per request, so a bad
  // value is refused with a runtime-guard frame rather than failing the extension load.
  std::optional<std::string> cache_retention;
  int64_t max_provider_requests = protocol::kMaxProviderRequests;
  int64_t max_tool_calls = protocol::kMaxToolCalls;
};

// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

// Error code "config_invalid" for a missing or unknown role, or a candidate without an absolute
// oversize path.
Result<ChildConfig> ReadChildConfig(const EnvLookup& lookup);

// The process environment (getenv).
EnvLookup ProcessEnvLookup();

}  // namespace pi_fusion::child
