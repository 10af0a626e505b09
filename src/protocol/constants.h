// The child protocol's fixed identifiers and limits: the single place they are spelled.
//
// Shared by the companion child library (child/), which writes frames, and the parent-side
// verifier, which reads them. docs/protocol.md describes the byte format these name.
#pragma once

#include "core/error_codes.h"
#include "core/limits.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace pi_fusion::protocol {

// Every frame is one stderr line: kFramePrefix, canonical JSON, "\n". Pi's own stderr lines are
// diagnostics and never start with this prefix.
inline constexpr std::string_view kFramePrefix = "@pi-fusion-frame ";

// Schema ids (spec/CONTRACTS.md, "Schema ids").
inline constexpr std::string_view kMetadataSchema = "pi-background-tasks.fusion-child-result.v4";
inline constexpr std::string_view kSettlementSchema =
    "pi-background-tasks.fusion-child-settlement.v3";
inline constexpr std::string_view kRuntimeGuardSchema =
    "pi-background-tasks.fusion-runtime-guard.v2";
inline constexpr std::string_view kCacheObservationSchema =
    "pi-background-tasks.fusion-claude-cache-observation.v1";
inline constexpr std::string_view kToolCallSchema = "pi-background-tasks.fusion-tool-call.v1";
// The shown arguments of one journaled tool call (docs/protocol.md, "Tool-call arguments").
inline constexpr std::string_view kToolArgumentsSchema =
    "pi-background-tasks.fusion-tool-call-arguments.v1";
inline constexpr std::string_view kToolCallSealSchema =
    "pi-background-tasks.fusion-tool-call-seal.v1";
// A sign of life while the child streams or runs a tool (docs/protocol.md, "Progress").
inline constexpr std::string_view kProgressSchema = "pi-background-tasks.fusion-child-progress.v1";

// Error codes: core/error_codes.h.

// Execution limits of one child (seed-fusion-subsystem.md, "Child process isolation").
inline constexpr int64_t kMaxProviderRequests = 550;
inline constexpr int64_t kMaxToolCalls = 600;
// An evaluator with tools (policy.evaluator_tools): its budget of tool calls. A call past it is
// refused with a result that tells the model to answer (not an error of the run); a call past
// kEvaluatorMaxToolCalls is the evaluator's execution limit, enforced like kMaxToolCalls.
inline constexpr int64_t kEvaluatorToolBudget = 12;
inline constexpr int64_t kEvaluatorMaxToolCalls = 2 * kEvaluatorToolBudget;
// Aggregate result bytes (canonical JSON of each result the model received) of one child: once
// passed, the next tool call is refused; a sealed log over it is rejected by the parent.
inline constexpr uint64_t kMaxToolResultBytes = 32ULL * 1024 * 1024;
// A tool name longer than this (the model chooses it) is cut in the audit log.
inline constexpr size_t kMaxToolNameBytes = 256;
// A candidate answer larger than kCandidateOutputMaxBytes (core/limits.h; JSON-rendered UTF-8
// bytes, see AnswerJsonBytes) gets the one same-session compression turn; a replacement larger
// than it is child_output_cap.

// Bounds of the free-text fields a frame may carry (UTF-8 bytes).
inline constexpr size_t kMaxFrameMessageBytes = 512;
// A tool call's arguments enter its arguments frame only up to this size (canonical JSON bytes):
// enough for any path, pattern or URL a person reads, never a payload.
inline constexpr size_t kMaxShownArgumentsBytes = 1024;
// The child writes at most one progress frame per this many milliseconds: often enough that a
// stall bound of a few seconds sees a streaming model as alive, rare enough that a 50-minute
// child writes at most 3,000 short lines.
inline constexpr int64_t kProgressFrameIntervalMs = 1000;
// Anthropic accepts at most four cache_control breakpoints per request.
inline constexpr int kMaxCacheBreakpoints = 4;

}  // namespace pi_fusion::protocol
