// source-policy.private.json (`pi-background-tasks.fusion-source-policy.v1`): the research run's
// declared canonical URLs, written durably by the parent before the receipt and enforced by the
// research candidates' `fusion_web_fetch` (docs/tools/fusion_research.md). "Private": the URLs
// a caller declares may say what they work on, so the file stays in the run directory.
//
//   {"declared_urls":["https://example.com/a",…],"run_id":"research-<32 hex>",
//    "schema_version":"pi-background-tasks.fusion-source-policy.v1"}
//
// Canonical JSON (sorted keys, no whitespace). declared_urls keeps the declaration order; every
// entry is the canonical text CanonicalizeDeclaredSource gives (a fixed point), none repeats.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"

namespace pi_fusion::url {

inline constexpr std::string_view kSourcePolicySchema =
    "pi-background-tasks.fusion-source-policy.v1";
inline constexpr std::string_view kSourcePolicyFile = "source-policy.private.json";
// Fetches one research candidate attempt may make; the next is refused (fetch_limit_exceeded).
inline constexpr int kMaxFetchesPerAttempt = 50;
// A research candidate reads the policy at most this long. The file holds the declared URLs (a
// handful of short lines in practice); the cap is the run store's for any artifact it reads back
// (store::kArtifactMaxBytes), so every policy the parent could write and re-read loads here too.
inline constexpr uint64_t kSourcePolicyMaxBytes = 64u << 20;

struct SourcePolicy {
  std::string run_id;
  std::vector<std::string> declared_urls;  // canonical, in declaration order
};

// The file's bytes. Error code "invalid_arguments" when a URL is not canonical (callers pass the
// normalized request's URLs, which always are), repeats, or the list is empty.
Result<std::string> SourcePolicyJson(const SourcePolicy& policy);

// Reads the file's bytes back. Error code "source_policy_invalid" with what is wrong (not JSON,
// another schema_version, an unknown or missing key, a URL that is not canonical, a repeat).
Result<SourcePolicy> ParseSourcePolicy(std::string_view bytes);

// The declared canonical URL `requested` stands for, or nullopt: `requested` is canonicalized as
// a declared source would be (so `HTTPS://Example.com:443/a#x` matches `https://example.com/a`);
// anything that does not canonicalize matches nothing.
std::optional<std::string> MatchDeclaredUrl(const SourcePolicy& policy, std::string_view requested);

}  // namespace pi_fusion::url
