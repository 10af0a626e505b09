// Budget planner: per-route, per-stage forecasts of a Fusion run, computed before any child
// exists, plus the measured re-check of each exact prompt right before its child starts.
//
// Stages, in plan order, each on its own route:
//   candidate 1-3      known: candidate system prompt + user prompt (the canonical input)
//   evaluation         known: evaluator prompts with empty candidate responses
//                      reserved: 3 x 48 KiB candidate outputs
//   evaluation_repair  conditional (runs only after invalid evaluator JSON); known: repair prompts
//                      with empty responses, output and errors; reserved: 3 x 48 KiB + 64 KiB
//                      evaluator output + 8 KiB validation errors
//   merge              known: merger prompts with empty responses and evaluation;
//                      reserved: 3 x 48 KiB + 64 KiB evaluation
// Reserved bytes are unknown_output_contract bytes (one token per byte).
//
// Verdicts (docs/budget.md):
//   blocker  a non-conditional stage whose known input alone exceeds its route's allowed input:
//            no child can help it, so the run is refused (CheckPlan) and starts zero children;
//   warning  a stage whose known input itself uses >= 80% of the allowed input but fits; or a
//            conditional repair whose known input does not fit (the repair may never run; if it
//            does, its measured check fails). Warnings reach the person (receipt, progress,
//            result details).
//   note     worst-case reservation pressure: a stage whose known input is under 80% but whose
//            forecast (known + reserved upstream output) reaches 80% or exceeds the allowed
//            input. Upstream outputs are usually far shorter than their caps and the measured
//            check before launch decides, so this is recorded in budget-plan.json, never shown
//            as a warning. (The seed made it a warning; it fired on every run of a 128K or 200K
//            route and taught people to ignore warnings.)
// Counterfactuals re-run the blocker test with the request removed, and with the request and
// the session history removed; they decide whether shortening the request can help.
//
// Pure computation on caller-owned text; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "budget/estimator.h"
#include "budget/route_capacity.h"
#include "core/workflow_id.h"
#include "pi_fusion/status.h"

namespace pi_fusion::budget {

// A plan has one stage per role (core/role.h): candidates, evaluation, its conditional repair and
// the merge, named in budget-plan.json by PlanStageName.

// One stage's prompt exactly as the child receives it: --system-prompt and stdin.
struct StagePrompt {
  std::string_view system_prompt;
  std::string_view user_prompt;
};

// Everything the planner reads. Views must stay valid for the duration of PlanBudget.
struct PlanInput {
  Workflow workflow = Workflow::kReason;
  // REQUIRES: routes[i].slot == kAllSlots[i].
  std::array<RouteSpec, 5> routes;
  StagePrompt candidate;
  StagePrompt evaluation;         // rendered with three empty candidate responses
  StagePrompt evaluation_repair;  // rendered with empty responses, invalid output and errors
  StagePrompt merge;              // rendered with empty responses and an empty evaluation
  // The request's bytes exactly as they occur, once, in every user_prompt (JSON-escaped, as
  // rendered). Checked: a request missing from a prompt is orchestration_failed.
  std::string_view request;
  // The session projection's bytes as they occur, once, in every user_prompt, disjoint from
  // `request`; empty for clean-task workflows. Checked like `request`.
  std::string_view history;
  // How often the candidates' answers occur in the evaluator's input: 1, or 2 for validate, whose
  // blind input carries each review and again its findings (validation_source_findings). The
  // evaluation and repair stages reserve that many copies of the candidates' output contracts.
  int evaluation_answer_copies = 1;
};

// The output-contract bytes the evaluation and repair stages reserve for upstream outputs.
int64_t EvaluationReserveBytes(const PlanInput& in);
int64_t RepairReserveBytes(const PlanInput& in);

struct StageForecast {
  Role stage = Role::kCandidate;
  int slot = 0;                    // 1-3 for candidates, 0 otherwise
  Slot route = Slot::kCandidate1;  // the configured route the stage runs on
  bool conditional = false;
  int64_t reserved_output_contract_bytes = 0;
  // Forecast over known + reserved bytes; `input_tokens` is the same estimate without the
  // reserved bytes (the rate depends on known bytes only, so both share it).
  TokenEstimate estimate;
  int64_t input_tokens = 0;
  int64_t allowed_input = 0;
  int64_t input_utilization_bp = 0;  // ceil(input_tokens * 10000 / allowed_input)
  int64_t utilization_bp = 0;        // ceil(estimate.tokens * 10000 / allowed_input)
  bool input_fits = false;
  bool forecast_fits = false;

  std::string Label() const;  // "candidate 2", "evaluation", "evaluation repair", "merge"
};

enum class WarningKind { kHighUtilization, kWorstCaseReservation, kConditionalRepairInput };
std::string_view WarningKindName(WarningKind kind);

struct BudgetWarning {
  size_t stage_index = 0;  // into BudgetPlan::stages
  WarningKind kind = WarningKind::kHighUtilization;
  std::string message;
};

struct BudgetBlocker {
  size_t stage_index = 0;
  int64_t overage_tokens = 0;  // input_tokens - allowed_input (> 0)
  std::string message;
};

// Would every non-conditional stage fit with `removed_bytes` fewer bytes?
struct Counterfactual {
  int64_t removed_bytes = 0;
  bool fits = false;
  std::vector<size_t> blocking_stages;  // indices into BudgetPlan::stages
};

enum class RemediationId { kNone, kShortenRequest, kReduceSessionHistory, kChooseLargerModel };
std::string_view RemediationIdName(RemediationId id);  // "none", "shorten_request", ...

struct Remediation {
  RemediationId id = RemediationId::kNone;
  bool shortening_request_can_help = false;
  std::string text;
};

struct BudgetPlan {
  Workflow workflow = Workflow::kReason;
  std::array<RouteCapacity, 5> routes;
  std::vector<StageForecast> stages;    // candidate 1-3, evaluation, evaluation_repair, merge
  std::vector<BudgetWarning> warnings;  // at most one per stage, plan order
  // Worst-case reservation pressure (kWorstCaseReservation only), plan order; a stage has a
  // warning or a note, never both.
  std::vector<BudgetWarning> notes;
  std::vector<BudgetBlocker> blockers;  // plan order; the first is the primary blocker
  Counterfactual empty_request;
  Counterfactual empty_request_and_history;
  Remediation remediation;

  bool blocked() const { return !blockers.empty(); }
};

// Plans the run. Fails only when a route is unusable (model_capacity_unknown naming the slot)
// or a REQUIRES above is broken (orchestration_failed). A plan with blockers is still returned:
// it is written as budget-plan.json before CheckPlan refuses the run.
Result<BudgetPlan> PlanBudget(const PlanInput& input);

// ok, or prompt_budget_exceeded_forecast for a blocked plan: the message names the primary
// blocking stage, route, tokens and the remediation (whether shortening the request can help).
Status CheckPlan(const BudgetPlan& plan);

// The measured check right before a child starts: estimates the exact rendered prompt
// (system + user bytes, all known) on `route`. ok when the estimate is <= the allowed input;
// otherwise prompt_budget_exceeded_measured naming the stage, slot and overage.
// REQUIRES: `route` is the stage's route (a candidate stage's slot is taken from its role).
Status CheckMeasuredPrompt(const RouteCapacity& route, Role stage, std::string_view system_prompt,
                           std::string_view user_prompt);

// Formats a rate such as 173 as "1.73".
std::string FormatRateX100(int64_t rate_x100);

}  // namespace pi_fusion::budget
