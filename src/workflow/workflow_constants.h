// The workflow layer's fixed identifiers and limits: the single place they are spelled.
//
// Schema ids, error codes and byte limits come from spec/CONTRACTS.md; docs/workflow.md and the
// closed schemas in schemas/artifacts/ describe the shapes that carry them. Tests and docs read
// these names rather than restating the numbers.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <string_view>

#include "core/error_codes.h"
#include "core/limits.h"
#include "process/child_command.h"
#include "protocol/constants.h"
#include "store/constants.h"

namespace pi_fusion::workflow {

// Schema ids (spec/CONTRACTS.md, "Schema ids").
inline constexpr std::string_view kInputSchema = "pi-background-tasks.fusion-input.v5";
inline constexpr std::string_view kContextLedgerSchema =
    "pi-background-tasks.fusion-context-ledger.v2";
inline constexpr std::string_view kEvaluationSchema = "pi-background-tasks.fusion-evaluation.v1";
// The evaluation of a run whose evaluator had tools (policy.evaluator_tools): v1's closed shape
// plus the required checked_claims (evaluation_contract.h).
inline constexpr std::string_view kEvaluationV2Schema = "pi-background-tasks.fusion-evaluation.v2";
inline constexpr std::string_view kBlindCandidatesSchema =
    "pi-background-tasks.fusion-blind-candidates.v1";
inline constexpr std::string_view kEvaluationRepairInputSchema =
    "pi-background-tasks.fusion-evaluation-repair-input.v1";
inline constexpr std::string_view kMergeInputSchema = "pi-background-tasks.fusion-merge-input.v1";
inline constexpr std::string_view kValidationCandidateSchema =
    "pi-background-tasks.fusion-validation-candidate.v1";
inline constexpr std::string_view kValidationContractEventSchema =
    "pi-background-tasks.fusion-validation-candidate-contract-event.v1";
// Spelled once, by the store that stamps it into result.json.
inline constexpr std::string_view kResultSchema = store::kResultDetailsSchema;

// Error codes: core/error_codes.h.

// How long a candidate stopped because a sibling failed gets between SIGTERM and SIGKILL: short,
// so the failure is published within a second (fail fast).
inline constexpr std::chrono::milliseconds kSiblingStopGrace{500};

// Context policies. The projection policy id is versioned: any change to what the projection keeps,
// omits or how it words a receipt is a new id, so equal ids promise equal bytes for equal branches.
inline constexpr std::string_view kSessionProjectionKind = "session_projection";
inline constexpr std::string_view kSessionProjectionPolicy = "pi-fusion.session-projection.v1";
inline constexpr std::string_view kCleanTaskKind = "clean_task";
// Run-directory basename of the omission ledger written for reason runs.
inline constexpr std::string_view kContextLedgerFile = "context-omission-ledger.json";

// Output contracts (kCandidateOutputMaxBytes, kEvaluatorOutputMaxBytes, kMergerOutputMaxBytes,
// kDiagnosticsMaxBytes): core/limits.h, shared with the budget and the child protocol.

// The evaluator-repair child sees at most this much of the validator's error list.
inline constexpr size_t kRepairMaxErrors = 24;
inline constexpr size_t kRepairMaxErrorBytes = 500;
inline constexpr size_t kRepairMaxTotalBytes = 4000;

// An evaluation's checked_claims (v2): at most this many claims, each claim at most this many
// UTF-8 bytes, each with at most this many evidence citations.
inline constexpr size_t kMaxCheckedClaims = 24;
inline constexpr size_t kMaxCheckedClaimBytes = 500;
inline constexpr size_t kMaxClaimEvidence = 8;

// Three candidates run per workflow; after anonymization they are known only as A, B and C.
inline constexpr size_t kCandidateCount = 3;
inline constexpr std::array<std::string_view, kCandidateCount> kCandidateIds = {"A", "B", "C"};

// Which candidates the evaluator and merger prompts of a fusion-shaped run speak of: always A, B
// and C (quorum 3, the default), or A and B or A, B and C (quorum 2: the run may answer from two,
// and the prompts, fixed before any candidate ends, must not tell which).
enum class CandidateSet { kThree, kTwoOrThree };

// What a candidate child may do (seed-fusion-subsystem.md, "Workflow and stage policy"): the
// supervisor's own capability, so a row's choice reaches the child's command unchanged. The
// evaluator, its repair and the merger run as kReason, but for the evaluator of a run under
// policy.evaluator_tools, which gets its candidates' capability (workflow_spec.h).
using Capability = process::ChildCapability;

// The capability of every stage after the candidates: the evaluator (but under
// policy.evaluator_tools), its repair and the merger read only their input document.
inline constexpr Capability kJudgeCapability = Capability::kReason;

// What the candidates get as their input (seed: "clean tasks carry no parent transcript").
enum class ContextPolicy {
  kSessionProjection,  // the conversation's visible text (context_projection.h)
  kCleanTask,          // only the normalized request (clean_task.h)
};

}  // namespace pi_fusion::workflow
