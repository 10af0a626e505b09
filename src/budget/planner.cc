#include "budget/planner.h"

#include <utility>

#include "budget/budget_constants.h"
#include "budget/stage_text.h"

namespace pi_fusion::budget {

std::string StageForecast::Label() const { return StageLabel(stage, slot); }

std::string_view WarningKindName(WarningKind kind) {
  switch (kind) {
    case WarningKind::kHighUtilization:
      return "high_utilization";
    case WarningKind::kWorstCaseReservation:
      return "worst_case_reservation";
    case WarningKind::kConditionalRepairInput:
      break;
  }
  return "conditional_repair_input";
}

std::string_view RemediationIdName(RemediationId id) {
  switch (id) {
    case RemediationId::kNone:
      return "none";
    case RemediationId::kShortenRequest:
      return "shorten_request";
    case RemediationId::kReduceSessionHistory:
      return "reduce_session_history";
    case RemediationId::kChooseLargerModel:
      break;
  }
  return "choose_larger_context_model";
}

int64_t EvaluationReserveBytes(const PlanInput& in) {
  return in.evaluation_answer_copies * kEvaluationReserveBytes;
}

// The repair input holds the whole blind input: its extra copies come on top.
int64_t RepairReserveBytes(const PlanInput& in) {
  return kRepairReserveBytes + (in.evaluation_answer_copies - 1) * kEvaluationReserveBytes;
}

namespace {

// One stage before estimation: which prompt, which route, what is reserved.
struct StageDraft {
  Role stage;
  int slot;
  Slot route;
  bool conditional;
  int64_t reserve;
  const StagePrompt* prompt;
};

std::vector<StageDraft> Drafts(const PlanInput& in) {
  return {
      {Role::kCandidate, 1, Slot::kCandidate1, false, 0, &in.candidate},
      {Role::kCandidate, 2, Slot::kCandidate2, false, 0, &in.candidate},
      {Role::kCandidate, 3, Slot::kCandidate3, false, 0, &in.candidate},
      {Role::kEvaluator, 0, Slot::kEvaluator, false, EvaluationReserveBytes(in), &in.evaluation},
      {Role::kRepair, 0, Slot::kEvaluator, true, RepairReserveBytes(in), &in.evaluation_repair},
      {Role::kMerger, 0, Slot::kMerger, false, kMergeReserveBytes, &in.merge},
  };
}

int64_t CeilBasisPoints(int64_t tokens, int64_t allowed) {
  return (tokens * kFractionScale + allowed - 1) / allowed;
}

StageForecast Forecast(const StageDraft& draft, const RouteCapacity& route,
                       const ByteClassCounts& known) {
  StageForecast f;
  f.stage = draft.stage;
  f.slot = draft.slot;
  f.route = draft.route;
  f.conditional = draft.conditional;
  f.reserved_output_contract_bytes = draft.reserve;
  ByteClassCounts counts = known;
  counts.unknown_output_contract = draft.reserve;
  f.estimate = EstimateTokens(route.family, counts);
  f.input_tokens = f.estimate.tokens - f.estimate.unknown_output_contract_tokens;
  f.allowed_input = route.allowed_input;
  f.input_utilization_bp = CeilBasisPoints(f.input_tokens, f.allowed_input);
  f.utilization_bp = CeilBasisPoints(f.estimate.tokens, f.allowed_input);
  f.input_fits = f.input_tokens <= f.allowed_input;
  f.forecast_fits = f.estimate.tokens <= f.allowed_input;
  return f;
}

Status CheckOccurs(std::string_view part, std::string_view what, const StagePrompt& prompt,
                   Role stage) {
  if (part.empty() || prompt.user_prompt.find(part) != std::string_view::npos) return Status();
  return Status::Error(std::string(kOrchestrationFailed),
                       "budget planning: the " + std::string(what) + " does not occur in the " +
                           std::string(PlanStageName(stage)) + " prompt");
}

Status CheckPreconditions(const PlanInput& in) {
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    if (in.routes[i].slot != kAllSlots[i]) {
      return Status::Error(std::string(kOrchestrationFailed),
                           "budget planning: routes are not in slot order");
    }
  }
  for (const StageDraft& d : Drafts(in)) {
    Status s = CheckOccurs(in.request, "request", *d.prompt, d.stage);
    if (s.ok()) s = CheckOccurs(in.history, "session history", *d.prompt, d.stage);
    if (!s.ok()) return s;
  }
  return Status();
}

const RouteCapacity& RouteFor(const BudgetPlan& plan, Slot route) {
  return plan.routes[static_cast<size_t>(route)];
}

// The blocker test (non-conditional stages, known input only) with `removed` taken out.
Counterfactual Without(const BudgetPlan& plan, const std::vector<ByteClassCounts>& known,
                       const ByteClassCounts& removed) {
  Counterfactual result;
  result.removed_bytes = removed.known();
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const StageForecast& stage = plan.stages[i];
    if (stage.conditional) continue;
    ByteClassCounts counts = known[i];
    counts -= removed;
    const TokenEstimate estimate = EstimateTokens(RouteFor(plan, stage.route).family, counts);
    if (estimate.tokens > stage.allowed_input) result.blocking_stages.push_back(i);
  }
  result.fits = result.blocking_stages.empty();
  return result;
}

// Exact comparison: the basis points are rounded up for display, so 79.99% shows as 80.00% but
// is not at the threshold.
bool AtThreshold(int64_t tokens, int64_t allowed) {
  return tokens * kFractionScale >= kWarningThresholdBasisPoints * allowed;
}

void AddVerdicts(BudgetPlan& plan) {
  for (size_t i = 0; i < plan.stages.size(); ++i) {
    const StageForecast& s = plan.stages[i];
    const RouteCapacity& route = RouteFor(plan, s.route);
    if (!s.input_fits && !s.conditional) {
      plan.blockers.push_back({i, s.input_tokens - s.allowed_input, BlockerText(s, route)});
    } else if (!s.input_fits) {
      plan.warnings.push_back({i, WarningKind::kConditionalRepairInput, RepairInputText(s, route)});
    } else if (AtThreshold(s.input_tokens, s.allowed_input)) {
      plan.warnings.push_back({i, WarningKind::kHighUtilization, UtilizationText(s, route)});
    } else if (!s.forecast_fits || AtThreshold(s.estimate.tokens, s.allowed_input)) {
      plan.notes.push_back({i, WarningKind::kWorstCaseReservation, ReservationText(s, route)});
    }
  }
}

Remediation ChooseRemediation(const BudgetPlan& plan, const PlanInput& in) {
  Remediation r;
  if (!plan.blocked()) {
    r.text = "No stage is blocked.";
    return r;
  }
  const int64_t request_bytes = static_cast<int64_t>(in.request.size());
  if (plan.empty_request.fits) {
    r.id = RemediationId::kShortenRequest;
    r.shortening_request_can_help = true;
    r.text = ShortenRequestText(request_bytes);
  } else if (!in.history.empty() && plan.empty_request_and_history.fits) {
    r.id = RemediationId::kReduceSessionHistory;
    r.text = ReduceHistoryText(static_cast<int64_t>(in.history.size()));
  } else {
    r.id = RemediationId::kChooseLargerModel;
    const StageForecast& stage = plan.stages[plan.empty_request_and_history.blocking_stages[0]];
    r.text = LargerModelText(stage, RouteFor(plan, stage.route), !in.history.empty());
  }
  return r;
}

}  // namespace

Result<BudgetPlan> PlanBudget(const PlanInput& in) {
  Status pre = CheckPreconditions(in);
  if (!pre.ok()) return pre;
  BudgetPlan plan;
  plan.workflow = in.workflow;
  for (size_t i = 0; i < kAllSlots.size(); ++i) {
    Result<RouteCapacity> capacity = ComputeRouteCapacity(in.routes[i]);
    if (!capacity.ok()) return capacity.status();
    plan.routes[i] = std::move(capacity).value();
  }
  std::vector<ByteClassCounts> known;
  for (const StageDraft& d : Drafts(in)) {
    // Candidates share one prompt; counting it three times keeps the code simple and the cost
    // is linear in bytes that are about to be written to disk anyway.
    ByteClassCounts counts = CountByteClasses(d.prompt->system_prompt);
    counts += CountByteClasses(d.prompt->user_prompt);
    known.push_back(counts);
    plan.stages.push_back(Forecast(d, RouteFor(plan, d.route), counts));
  }
  AddVerdicts(plan);
  const ByteClassCounts request = CountByteClasses(in.request);
  ByteClassCounts request_and_history = request;
  request_and_history += CountByteClasses(in.history);
  plan.empty_request = Without(plan, known, request);
  plan.empty_request_and_history = Without(plan, known, request_and_history);
  plan.remediation = ChooseRemediation(plan, in);
  return plan;
}

}  // namespace pi_fusion::budget
