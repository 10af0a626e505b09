// The budget layer's fixed identifiers, rates and limits: the single place they are spelled.
//
// Sources: spec/CONTRACTS.md ("Budget", "Stages", schema ids, error codes) and
// seed-fusion-subsystem.md ("Budgets and output contracts"). docs/budget.md explains each number
// and the choices the spec leaves open (framing allowance, class rates, conditional repair).
// Every value is written into budget-plan.json's `policy` object, so a plan records the numbers
// it was computed with.
#pragma once

#include "core/error_codes.h"
#include "core/limits.h"

#include <cstdint>
#include <string_view>

namespace pi_fusion::budget {

// Schema ids (spec/CONTRACTS.md, "Schema ids").
inline constexpr std::string_view kBudgetPlanSchema = "pi-background-tasks.fusion-budget-plan.v4";
inline constexpr std::string_view kCalibrationViolationSchema =
    "pi-background-tasks.fusion-calibration-violation.v2";
// Names this implementation's policy inside the plan; bump when any number below changes.
inline constexpr std::string_view kPolicyId = "pi-fusion.budget-policy.v1";

// Error codes: core/error_codes.h.

// --- Estimator: tokens = sum over byte classes of ceil(bytes * kRateScale / rate_x100) + 512.
inline constexpr int64_t kRateScale = 100;  // rates are bytes per token x 100
inline constexpr int64_t kInterceptTokens = 512;
// Configured family rates (bytes/token x 100): calibrated on large real prompts.
inline constexpr int64_t kAnthropicRateX100 = 173;
inline constexpr int64_t kOpenAiCodexRateX100 = 289;
inline constexpr int64_t kUnknownRateX100 = 100;
// Outside the calibration domain the ASCII classes use min(configured, cap), never below floor.
inline constexpr int64_t kConservativeRateCapX100 = 200;
inline constexpr int64_t kRateFloorX100 = 100;
// Byte-level BPE never emits more tokens than bytes, so one token per byte is a provable bound.
// Multibyte UTF-8 and not-yet-produced output (whose bytes could all be multibyte) use it always.
inline constexpr int64_t kMultibyteRateX100 = 100;
inline constexpr int64_t kUnknownOutputContractRateX100 = 100;
// The calibrated rate applies only to prompts inside the calibration domain: at least this many
// known bytes, and at least kCalibrationMinWhitespaceX10000 / 10000 of them ASCII white space
// (near-zero white space marks base64, minified code or hex: denser than the corpus).
inline constexpr int64_t kCalibrationMinKnownBytes = 50 * 1024;
inline constexpr int64_t kCalibrationMinWhitespaceX10000 = 10;
inline constexpr int64_t kFractionScale = 10000;  // basis points

// --- Route capacity: allowed_input = window - reserved_output - framing - safety.
inline constexpr int64_t kFusionOutputReserveTokens = 32768;  // reserve max(this, model max output)
inline constexpr int64_t kAnthropicWindowCapTokens = 200000;  // subscription request policy
// Bytes Pi adds to the exact prompt we render: the `<cwd>` suffix of the system prompt, the
// subscription identity block, per-message framing and, for inspect/research candidates, the
// tool definitions (read, grep, find, ls, fusion_web_fetch: about 6 KB of JSON in Pi 1.6.0,
// under 3,500 tokens at 1.73 bytes/token). See docs/budget.md.
inline constexpr int64_t kFramingReserveTokens = 4096;
inline constexpr int64_t kSafetyReserveTokens = 4096;
// A route whose allowed input is below this is unusable (model_capacity_unknown).
inline constexpr int64_t kMinInputTokens = 8192;
// A stage at or above this utilization of its route's allowed input is a warning.
inline constexpr int64_t kWarningThresholdBasisPoints = 8000;

// --- Output contracts (JSON-rendered UTF-8 bytes) and the stage reservations built from them.
// The caps themselves (kCandidateOutputMaxBytes, kEvaluatorOutputMaxBytes, kMergerOutputMaxBytes,
// kDiagnosticsMaxBytes) are shared with the workflow and the child protocol: core/limits.h.
inline constexpr int64_t kEvaluationReserveBytes = 3 * int64_t{kCandidateOutputMaxBytes};
inline constexpr int64_t kMergeReserveBytes =
    kEvaluationReserveBytes + int64_t{kEvaluatorOutputMaxBytes};
inline constexpr int64_t kRepairReserveBytes = kMergeReserveBytes + int64_t{kDiagnosticsMaxBytes};

}  // namespace pi_fusion::budget
