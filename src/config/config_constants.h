// The config layer's fixed names, codes and limits: the single place they are spelled.
// Sources: spec/CONTRACTS.md ("/fusion-models", "Error codes") and spec/SCOPE.md section 3.
#pragma once

#include "core/error_codes.h"

#include <sys/types.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pi_fusion::config {

inline constexpr std::string_view kModelsFileName = "fusion-models.json";
// v1: the five slots. v2 (SCOPE §9): v1's keys plus an optional `policy`. A file whose policy is
// the default is written as v1, so v2 appears only where someone chose a policy.
inline constexpr std::string_view kModelsSchemaV1 = "pi-background-tasks.fusion-models.v1";
inline constexpr std::string_view kModelsSchemaV2 = "pi-background-tasks.fusion-models.v2";
// v3 (SCOPE §10): v2's keys plus panels and more policy keys. A file whose content fits v2 (or
// v1) is written as v2 (or v1).
inline constexpr std::string_view kModelsSchemaV3 = "pi-background-tasks.fusion-models.v3";
// v3 panels: a panel's name (also what /fusion @<name> types), and the thinking levels a panel may
// give a role, as Pi names them, or "inherit" (the parent session's level, the default).
inline constexpr std::string_view kPanelNamePattern = "^[a-z0-9][a-z0-9-]{0,31}$";
inline constexpr size_t kPanelNameMaxLength = 32;
inline constexpr std::array<std::string_view, 6> kPanelThinkingLevels = {
    "off", "minimal", "low", "medium", "high", "xhigh"};
inline constexpr std::string_view kInheritThinking = "inherit";
// The selection that means "the session's current model".
inline constexpr std::string_view kCurrentSelection = "$current";
// The policy's default quorum: every candidate must verify (the seed's fail-fast run); 2 is the
// only other value.
inline constexpr int kDefaultQuorum = 3;
inline constexpr int kReducedQuorum = 2;
// The floor of the default grace rule (grace_seconds null): the run waits the larger of this and
// half the elapsed time of the second verified candidate.
inline constexpr double kDefaultGraceFloorSeconds = 15;
// The longest grace_seconds: the candidate stage's wall limit (process::ChildLimits::wall, 50
// minutes; a unit test ties the two). A longer window could never end before the candidate's own
// limit, and a huge one would overflow the clock the run times it with.
inline constexpr double kMaxGraceSeconds = 3000;
// The default rule of stall_seconds (null): a stage child that shows no progress for 10 minutes
// (no byte of output, no tool call, no model-stream event) is stalled. Every streamed delta and
// every provider stream event counts as progress, so this bounds only silence: the wait for a
// model's first event of a request, or a tool that reports nothing. A frontier model that thinks
// for many minutes streams its thinking, or at least the provider's keep-alive events, all the
// while; ten silent minutes is past what a healthy request shows, and well inside the 50-minute
// wall limit, which stays the outer bound.
inline constexpr double kDefaultStallSeconds = 600;
// The largest stall_seconds: the children's wall limit (process::ChildLimits::wall, 50 min); a
// larger bound could never fire.
inline constexpr double kMaxStallSeconds = 3000;
// The longest keep_warm_seconds: a day. The pool is for agents that call Fusion in a loop; a longer
// hold keeps a few hundred megabytes for nothing, and the clock that times it must not overflow.
inline constexpr double kMaxKeepWarmSeconds = 86400;
// The most candidate processes the warm pool keeps per project: one per candidate slot.
inline constexpr int kWarmPoolSize = 3;
// What one idle pooled candidate process holds, as /fusion-models tells it (measured with Pi 1.6.0:
// 147 MB resident after 30 tasks; docs/config.md).
inline constexpr int kWarmProcessMegabytes = 150;

// Error codes: core/error_codes.h.

// Save lock: `.<file>.lock` beside the file, created exclusively, holding the writer's pid.
inline constexpr std::chrono::milliseconds kLockRetryInterval{25};
inline constexpr std::chrono::milliseconds kLockTimeout{10000};
inline constexpr mode_t kLockFileMode = 0600;
inline constexpr mode_t kConfigFileMode = 0600;
inline constexpr mode_t kConfigDirMode = 0700;
// Reads are bounded: fusion-models.json names five routes (a few hundred bytes in practice); the
// lock holds a pid and a newline.
inline constexpr uint64_t kModelsFileMaxBytes = 1u << 20;
inline constexpr uint64_t kLockFileMaxBytes = 64;

// The only endpoints on which a frontier route is admitted (exact strings).
inline constexpr std::string_view kAnthropicProvider = "anthropic";
inline constexpr std::string_view kAnthropicBaseUrl = "https://api.anthropic.com";
inline constexpr std::string_view kCodexProvider = "openai-codex";
inline constexpr std::string_view kCodexBaseUrl = "https://chatgpt.com/backend-api";
// Since Pi 0.99 "Sign in with ChatGPT" stores a subscription OAuth credential on `openai`.
inline constexpr std::string_view kOpenAIProvider = "openai";
inline constexpr std::string_view kOpenAIBaseUrl = "https://api.openai.com/v1";

// What a refusal tells the user to do.
inline constexpr std::string_view kChooseHint = "Choose another model for it with /fusion-models.";

}  // namespace pi_fusion::config
