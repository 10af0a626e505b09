// A child's role in a run, the five configured routes and the manifest's stages: the one
// vocabulary of the run side. Every layer that tells candidates, the evaluator, its repair and
// the merger apart takes these types; the names below are the only place they are spelled, and
// every name that crosses a boundary is derived from them: PI_FUSION_CHILD_ROLE, usage rows
// (`RoleName`), route ids and labels (`SlotId`, `SlotLabel`), the manifest's attempt stages and
// file names (`StageName`), the budget plan's stages (`PlanStageName`).
//
// In core because config, budget, store and the child library all need them. Pure; thread-safe.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include "core/name_table.h"

namespace pi_fusion {

// What a child does in a run. The repair is the evaluator asked once more after an unusable
// verdict: its own role in plans and usage, the evaluation's attempt 2 in the manifest.
enum class Role { kCandidate, kEvaluator, kRepair, kMerger };
inline constexpr std::array<Role, 4> kAllRoles = {Role::kCandidate, Role::kEvaluator, Role::kRepair,
                                                  Role::kMerger};

// The five configured routes, in plan and file order.
enum class Slot { kCandidate1, kCandidate2, kCandidate3, kEvaluator, kMerger };
inline constexpr std::array<Slot, 5> kAllSlots = {
    Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3, Slot::kEvaluator, Slot::kMerger};

// The stage an attempt (and a terminal error) is recorded under in the manifest. The agreement
// check of an adaptive run (workflow/agreement_check.h) runs on the evaluator's route as an
// evaluator (its repair, attempt 2, as the repair) and is its own stage. The order check
// (policy.order_check) runs on the evaluator's route after the evaluation; its children are
// evaluators to themselves and its calls and their repairs are its attempts 1, 2, ...
enum class Stage { kCandidate, kEvaluation, kMerge, kAgreement, kOrderCheck };

inline constexpr NameTable<Role, 4> kRoleNames = {
    {Role::kCandidate, Role::kEvaluator, Role::kRepair, Role::kMerger},
    {"candidate", "evaluator", "repair", "merger"}};
// The budget plan's stage names (budget-plan.json, calibration rows), one per role.
inline constexpr NameTable<Role, 4> kPlanStageNames = {
    {Role::kCandidate, Role::kEvaluator, Role::kRepair, Role::kMerger},
    {"candidate", "evaluation", "evaluation_repair", "merge"}};
inline constexpr NameTable<Slot, 5> kSlotIds = {
    {Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3, Slot::kEvaluator, Slot::kMerger},
    {"candidate-1", "candidate-2", "candidate-3", "evaluator", "merger"}};
inline constexpr NameTable<Slot, 5> kSlotLabels = {
    {Slot::kCandidate1, Slot::kCandidate2, Slot::kCandidate3, Slot::kEvaluator, Slot::kMerger},
    {"Candidate 1", "Candidate 2", "Candidate 3", "Evaluator", "Merger"}};
inline constexpr NameTable<Stage, 5> kStageNames = {
    {Stage::kCandidate, Stage::kEvaluation, Stage::kMerge, Stage::kAgreement, Stage::kOrderCheck},
    {"candidate", "evaluation", "merge", "agreement", "order_check"}};

inline constexpr NameTable<Role, 4> kRoleLabels = {
    {Role::kCandidate, Role::kEvaluator, Role::kRepair, Role::kMerger},
    {"Candidate", "Evaluator", "Repair", "Merger"}};

// "candidate" | "evaluator" | "repair" | "merger": PI_FUSION_CHILD_ROLE and usage rows.
constexpr std::string_view RoleName(Role role) { return kRoleNames.Name(role); }
constexpr std::optional<Role> ParseRole(std::string_view name) { return kRoleNames.Parse(name); }
// "Candidate" | "Evaluator" | "Repair" | "Merger": what people read (a candidate adds its number).
constexpr std::string_view RoleLabel(Role role) { return kRoleLabels.Name(role); }
// "candidate" | "evaluation" | "evaluation_repair" | "merge".
constexpr std::string_view PlanStageName(Role role) { return kPlanStageNames.Name(role); }

// "candidate-1" ... "evaluator", "merger".
constexpr std::string_view SlotId(Slot slot) { return kSlotIds.Name(slot); }
// "Candidate 1" ... "Evaluator", "Merger".
constexpr std::string_view SlotLabel(Slot slot) { return kSlotLabels.Name(slot); }

// "candidate" | "evaluation" | "merge" | "agreement" | "order_check".
constexpr std::string_view StageName(Stage stage) { return kStageNames.Name(stage); }
constexpr std::optional<Stage> ParseStage(std::string_view name) { return kStageNames.Parse(name); }

// The route a role runs on; `candidate` (1-3) picks the candidate's.
constexpr Slot SlotOf(Role role, int candidate = 1) {
  switch (role) {
    case Role::kCandidate:
      return kAllSlots[static_cast<size_t>(candidate < 1 || candidate > 3 ? 0 : candidate - 1)];
    case Role::kEvaluator:
    case Role::kRepair:
      return Slot::kEvaluator;
    case Role::kMerger:
      return Slot::kMerger;
  }
  return Slot::kMerger;
}

// The role whose route `slot` is (its repair shares the evaluator's).
constexpr Role RoleOf(Slot slot) {
  switch (slot) {
    case Slot::kCandidate1:
    case Slot::kCandidate2:
    case Slot::kCandidate3:
      return Role::kCandidate;
    case Slot::kEvaluator:
      return Role::kEvaluator;
    case Slot::kMerger:
      return Role::kMerger;
  }
  return Role::kMerger;
}

// The manifest stage a role's attempts are recorded under.
constexpr Stage StageOf(Role role) {
  switch (role) {
    case Role::kCandidate:
      return Stage::kCandidate;
    case Role::kEvaluator:
    case Role::kRepair:
      return Stage::kEvaluation;
    case Role::kMerger:
      return Stage::kMerge;
  }
  return Stage::kMerge;
}

// The role a stage's child plays (the repair child is an evaluator to itself).
constexpr Role ChildRoleOf(Stage stage) {
  switch (stage) {
    case Stage::kCandidate:
      return Role::kCandidate;
    case Stage::kEvaluation:
    case Stage::kAgreement:
    case Stage::kOrderCheck:
      return Role::kEvaluator;
    case Stage::kMerge:
      return Role::kMerger;
  }
  return Role::kMerger;
}

}  // namespace pi_fusion
