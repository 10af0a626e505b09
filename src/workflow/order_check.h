// The order check (policy.order_check "on_conflict"; docs/workflow.md, "Order check"): when the
// evaluation names conflicts, the evaluator's route is asked for a compact verdict on each
// conflict under two other relabellings of the candidates, and a conflict whose favoured
// candidate changes with the labels is order-sensitive: the merger is told to present both
// positions instead of picking one.
//
//   input   pi-background-tasks.fusion-order-check-input.v1
//           {schema_version, canonical_input, candidates[{candidate_id, response}] (relabelled,
//           in letter order), conflicts[{topic, positions[{candidate_id, position}]}]
//           (relabelled, positions in letter order)}
//   output  pi-background-tasks.fusion-order-check.v1, closed
//           {schema_version, verdicts[{topic, favoured: candidate_id | "none"}]}: one verdict per
//           conflict, in the input's order, each naming its conflict's topic exactly
//   repair  pi-background-tasks.fusion-order-check-repair-input.v1
//           {schema_version, original_input, invalid_output, validation_errors}
//
// The stability rule: the first order-check call is the first pass and the second the reorder
// (an evaluation's free-text resolution does not name one favoured candidate a program can read).
// A conflict is stable when both verdicts, mapped back to the evaluation's letters, name the
// same candidate, or both name none; otherwise it is order-sensitive.
//
// The input carries no slot, model or evaluation letter: a relabelling is a permutation of the
// letters, and nothing in the input says which one.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "workflow/anonymize.h"
#include "workflow/canonical_document.h"
#include "workflow/evaluation_contract.h"
#include "workflow/stage_inputs.h"

namespace pi_fusion::workflow {

inline constexpr std::string_view kOrderCheckInputSchema =
    "pi-background-tasks.fusion-order-check-input.v1";
inline constexpr std::string_view kOrderCheckSchema = "pi-background-tasks.fusion-order-check.v1";
inline constexpr std::string_view kOrderCheckRepairInputSchema =
    "pi-background-tasks.fusion-order-check-repair-input.v1";
// What a verdict says when no position is favoured.
inline constexpr std::string_view kFavouredNone = "none";
// What the merge input says of an order-sensitive conflict, and of a stable one.
inline constexpr std::string_view kOrderSensitiveInstruction =
    "order-sensitive: present both positions, do not pick one";
inline constexpr std::string_view kOrderStableInstruction =
    "stable: the evaluation's resolution held under reordering";
// The order-check calls a run with conflicts makes (repairs aside).
inline constexpr size_t kOrderCheckPasses = 2;

// A relabelling of the evaluation's candidates: letters[i] is the order-check letter of the
// evaluation's i-th candidate (A, B, C in that order).
struct Relabelling {
  std::vector<std::string> letters;
  // The order-check letter of evaluation letter `id`; empty when `id` is not one.
  std::string To(std::string_view id) const;
  // The evaluation letter of order-check letter `id`; empty when `id` is not one.
  std::string From(std::string_view id) const;
};

// The two relabellings of `count` candidates (2 or 3). Three: the two rotations (A→B→C→A and
// A→C→B→A), each different from the evaluation's map and from each other, every candidate under
// another letter each time. Two: only one other permutation exists, so the passes are the
// evaluation's order and the swap (documented).
std::vector<Relabelling> OrderCheckRelabellings(size_t count);

// The order-check input under `relabelling`. `candidates` are under the evaluation's letters,
// `conflicts` is the validated evaluation's conflicts array. Errors: orchestration_failed.
Result<CanonicalDocument> BuildOrderCheckInput(const CanonicalDocument& canonical_input,
                                               const std::vector<AnonymousCandidate>& candidates,
                                               const nlohmann::json& conflicts,
                                               const Relabelling& relabelling);

// {schema_version, original_input, invalid_output, validation_errors (capped)}.
Result<CanonicalDocument> BuildOrderCheckRepairInput(const CanonicalDocument& original_input,
                                                     const std::string& invalid_output,
                                                     const std::vector<EvaluationError>& errors);

// One call's verdicts, read back: favoured[i] is the evaluation letter conflict i's verdict
// favours, nullopt for "none".
struct OrderCheckVerdicts {
  std::vector<std::optional<std::string>> favoured;
};

struct OrderCheckCheck {
  std::optional<OrderCheckVerdicts> verdicts;  // set iff errors is empty
  std::vector<EvaluationError> errors;
  bool ok() const { return errors.empty(); }
};

// Validates one order-check call's complete stdout against the input it was given (`input`,
// BuildOrderCheckInput's value) and maps its verdicts back through `relabelling`.
OrderCheckCheck ValidateOrderCheck(std::string_view output, const nlohmann::json& input,
                                   const Relabelling& relabelling);

// One conflict's outcome: what each pass favoured (evaluation letters; nullopt = none).
struct ConflictOrder {
  std::string topic;
  std::vector<std::optional<std::string>> favoured;
  bool stable = true;
};

// The stability rule (see above) over the passes' verdicts. REQUIRES: every pass has one
// verdict per conflict.
std::vector<ConflictOrder> JudgeOrder(const nlohmann::json& conflicts,
                                      const std::vector<OrderCheckVerdicts>& passes);

// How many of `conflicts` are order-sensitive.
size_t OrderSensitiveCount(const std::vector<ConflictOrder>& conflicts);

// "order-sensitive: 1 of 3 conflicts" (the views' line); empty when none is.
std::string OrderSensitiveLine(size_t sensitive, size_t total);

// The merge input's optional `order_check` array: {topic, instruction} per conflict, in the
// evaluation's order.
nlohmann::json MergeOrderNotes(const std::vector<ConflictOrder>& conflicts);

// The run's record of `conflicts` (result details and manifest `order_check`,
// store::IsOrderCheckRecord): {passes, order_sensitive, conflicts[{favoured_slots, stable}]}, the
// favoured evaluation letters mapped to slots through `map` (null for "none").
nlohmann::json OrderCheckRecord(const std::vector<ConflictOrder>& conflicts,
                                const AnonymousMap& map);

}  // namespace pi_fusion::workflow
