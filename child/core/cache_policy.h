// The Claude cache-retention governor: validates and normalizes the cache_control breakpoints of
// an anthropic-messages payload (spec/PI_HOST.md §10; docs/protocol.md, "Cache policy").
//
// Pi's adapter already places the breakpoints (system blocks, the last tool, the last user or
// system message); this code does not invent any. It:
//   - refuses a cache_control that is not exactly {type:"ephemeral"} with an optional ttl of "5m"
//     or "1h" (child_cache_policy_invalid);
//   - leaves a payload without any marker alone (call-level `none`, e.g. compaction);
//   - enforces the four-breakpoint ceiling, keeping the breakpoints Pi relies on (the last system
//     block, the last tool, the last message block) and dropping the others in prompt order
//     (top-level marker first, then tools, system and messages, earliest first);
//   - applies the requested retention: long = ttl "1h" on every marker (short when the model's
//     compat.supportsLongCacheRetention is false), short = no ttl, none = no markers.
// Markers are looked for only where Anthropic reads them: the payload's top level, system blocks,
// tool definitions, message content blocks and the content blocks nested in a tool_result.
//
// Pure code; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "protocol/frames.h"

namespace pi_fusion::child {

struct CachePolicy {
  std::string requested;  // none | short | long
  std::string source;     // env | default
};

// From PI_CACHE_RETENTION (nullopt = unset: Pi's default, short). Anything but none, short or
// long is child_cache_policy_invalid: Pi itself would silently read a typo as short.
Result<CachePolicy> ResolveCachePolicy(const std::optional<std::string>& env_value);

// Normalizes `payload` in place for `api` and returns the observation for request `ordinal`.
// Payloads of other apis are not touched (effective retention "unmanaged").
// REQUIRES: payload->is_object().
Result<protocol::CacheObservation> ApplyCachePolicy(nlohmann::json* payload,
                                                    const CachePolicy& policy, std::string_view api,
                                                    bool long_allowed, int64_t ordinal);

}  // namespace pi_fusion::child
