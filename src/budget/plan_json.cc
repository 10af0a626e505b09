#include "budget/plan_json.h"

#include "budget/budget_constants.h"
#include "pi_fusion/canonical_json.h"

namespace pi_fusion::budget {

using nlohmann::json;

json BudgetPolicyJson() {
  return {
      {"id", kPolicyId},
      {"rate_scale", kRateScale},
      {"intercept_tokens", kInterceptTokens},
      {"family_rates_x100",
       {{"anthropic", kAnthropicRateX100},
        {"openai-codex", kOpenAiCodexRateX100},
        {"unknown", kUnknownRateX100}}},
      {"conservative_rate_cap_x100", kConservativeRateCapX100},
      {"rate_floor_x100", kRateFloorX100},
      {"multibyte_rate_x100", kMultibyteRateX100},
      {"unknown_output_contract_rate_x100", kUnknownOutputContractRateX100},
      {"calibration_min_known_bytes", kCalibrationMinKnownBytes},
      {"calibration_min_whitespace_x10000", kCalibrationMinWhitespaceX10000},
      {"fusion_output_reserve_tokens", kFusionOutputReserveTokens},
      {"anthropic_window_cap_tokens", kAnthropicWindowCapTokens},
      {"framing_reserve_tokens", kFramingReserveTokens},
      {"safety_reserve_tokens", kSafetyReserveTokens},
      {"min_input_tokens", kMinInputTokens},
      {"warning_threshold_basis_points", kWarningThresholdBasisPoints},
      {"candidate_output_contract_bytes", int64_t{kCandidateOutputMaxBytes}},
      {"evaluation_output_contract_bytes", int64_t{kEvaluatorOutputMaxBytes}},
      {"merge_output_contract_bytes", int64_t{kMergerOutputMaxBytes}},
      {"diagnostics_contract_bytes", int64_t{kDiagnosticsMaxBytes}},
  };
}

json RateJson(const RateChoice& rate) {
  json fraction =
      rate.whitespace_fraction_x10000 < 0 ? json(nullptr) : json(rate.whitespace_fraction_x10000);
  return {{"family", FamilyName(rate.family)},
          {"configured_x100", rate.configured_x100},
          {"effective_x100", rate.effective_x100},
          {"source", RateSourceName(rate.source)},
          {"whitespace_fraction_x10000", fraction}};
}

json ByteClassesJson(const ByteClassCounts& counts) {
  return {{"multibyte", counts.multibyte},
          {"whitespace", counts.whitespace},
          {"dense", counts.dense},
          {"unknown_output_contract", counts.unknown_output_contract}};
}

namespace {

json RouteJson(const RouteCapacity& r) {
  return {{"role", SlotId(r.spec.slot)},
          {"label", SlotLabel(r.spec.slot)},
          {"provider", r.spec.provider},
          {"model", r.spec.model},
          {"family", FamilyName(r.family)},
          {"context_window_tokens", r.spec.context_window},
          {"effective_window_tokens", r.effective_window},
          {"window_capped", r.window_capped},
          {"model_max_output_tokens", r.spec.max_output_tokens},
          {"reserved_output_tokens", r.reserved_output},
          {"framing_reserve_tokens", r.framing_reserve},
          {"safety_reserve_tokens", r.safety_reserve},
          {"allowed_input_tokens", r.allowed_input}};
}

json SlotJson(int slot) { return slot == 0 ? json(nullptr) : json(slot); }

// The identity of a stage, shared by stage, warning and blocker rows.
json StageRef(const StageForecast& s) {
  return {{"stage", PlanStageName(s.stage)},
          {"slot", SlotJson(s.slot)},
          {"role", SlotId(s.route)},
          {"label", s.Label()}};
}

json StageJson(const StageForecast& s) {
  const TokenEstimate& e = s.estimate;
  json row = StageRef(s);
  row.update({{"conditional", s.conditional},
              {"reserved_output_contract_bytes", s.reserved_output_contract_bytes},
              {"bytes", ByteClassesJson(e.bytes)},
              {"known_bytes", e.bytes.known()},
              {"dominant_byte_class", ByteClassName(DominantByteClass(e.bytes))},
              {"rate", RateJson(e.rate)},
              {"tokens",
               {{"multibyte", e.multibyte_tokens},
                {"whitespace", e.whitespace_tokens},
                {"dense", e.dense_tokens},
                {"unknown_output_contract", e.unknown_output_contract_tokens},
                {"intercept", e.intercept_tokens}}},
              {"input_tokens", s.input_tokens},
              {"forecast_tokens", e.tokens},
              {"allowed_input_tokens", s.allowed_input},
              {"input_utilization_basis_points", s.input_utilization_bp},
              {"utilization_basis_points", s.utilization_bp},
              {"input_fits", s.input_fits},
              {"forecast_fits", s.forecast_fits}});
  return row;
}

json CounterfactualJson(const BudgetPlan& plan, const Counterfactual& c) {
  json blocking = json::array();
  for (size_t i : c.blocking_stages) blocking.push_back(plan.stages[i].Label());
  return {{"removed_bytes", c.removed_bytes}, {"fits", c.fits}, {"blocking_stages", blocking}};
}

// Warning or note rows. A high_utilization row gives the known input's utilization (what it
// is about); the others give the forecast's, reservations included.
json WarningsJson(const BudgetPlan& plan, const std::vector<BudgetWarning>& findings) {
  json rows = json::array();
  for (const BudgetWarning& w : findings) {
    const StageForecast& s = plan.stages[w.stage_index];
    json row = StageRef(s);
    row.update(
        {{"kind", WarningKindName(w.kind)},
         {"utilization_basis_points",
          w.kind == WarningKind::kHighUtilization ? s.input_utilization_bp : s.utilization_bp},
         {"message", w.message}});
    rows.push_back(std::move(row));
  }
  return rows;
}

json BlockersJson(const BudgetPlan& plan) {
  json rows = json::array();
  for (const BudgetBlocker& b : plan.blockers) {
    const StageForecast& s = plan.stages[b.stage_index];
    json row = StageRef(s);
    row.update({{"input_tokens", s.input_tokens},
                {"allowed_input_tokens", s.allowed_input},
                {"overage_tokens", b.overage_tokens},
                {"message", b.message}});
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace

json BudgetPlanToJson(const BudgetPlan& plan) {
  int64_t repair_reserve = kRepairReserveBytes;
  for (const StageForecast& s : plan.stages) {
    if (s.stage == Role::kRepair) repair_reserve = s.reserved_output_contract_bytes;
  }
  json routes = json::array();
  for (const RouteCapacity& r : plan.routes) routes.push_back(RouteJson(r));
  json stages = json::array();
  for (const StageForecast& s : plan.stages) stages.push_back(StageJson(s));
  return {
      {"schema_version", kBudgetPlanSchema},
      {"workflow", Name(plan.workflow)},
      {"policy", BudgetPolicyJson()},
      {"routes", routes},
      {"stages", stages},
      {"conditional_repair_reservation",
       {{"stage", PlanStageName(Role::kRepair)},
        {"reserved_output_contract_bytes", repair_reserve},
        {"blocks_launch", false}}},
      {"warnings", WarningsJson(plan, plan.warnings)},
      {"notes", WarningsJson(plan, plan.notes)},
      {"blockers", BlockersJson(plan)},
      {"blocked", plan.blocked()},
      {"counterfactuals",
       {{"empty_request", CounterfactualJson(plan, plan.empty_request)},
        {"empty_request_and_history", CounterfactualJson(plan, plan.empty_request_and_history)}}},
      {"remediation",
       {{"id", RemediationIdName(plan.remediation.id)},
        {"shortening_request_can_help", plan.remediation.shortening_request_can_help},
        {"text", plan.remediation.text}}},
  };
}

std::string BudgetPlanBytes(const BudgetPlan& plan) {
  return CanonicalJson(BudgetPlanToJson(plan));
}

}  // namespace pi_fusion::budget
