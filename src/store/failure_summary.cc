#include "store/failure_summary.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/durable_file.h"
#include "core/error_codes.h"
#include "core/utf8.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/resumability.h"
#include "store/role_usage.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

struct CodeRule {
  std::string_view code;
  std::string_view failure_class;
  std::vector<std::string> remediation;
};

// One row per spec error code: its class and what the user can do about it.
const std::vector<CodeRule>& CodeRules() {
  static const std::vector<CodeRule> kRules = {
      {kConfigInvalid, "configuration", {"fix_fusion_models_config"}},
      {kConfigConflict, "configuration", {"reload_fusion_models_config"}},
      {kModelUnavailable, "configuration", {"choose_available_route"}},
      {kModelCapacityUnknown, "configuration", {"choose_route_with_context_window"}},
      {kContextCaptureFailed, "context", {"inspect_context_ledger"}},
      {kContextPolicyUnsupportedBlock, "context", {"inspect_context_ledger"}},
      {kPromptBudgetExceededForecast,
       "budget",
       {"inspect_budget_plan", "shorten_request_or_context", "choose_larger_context_route"}},
      {kPromptBudgetExceededMeasured,
       "budget",
       {"inspect_budget_plan", "split_workflow", "choose_larger_context_route"}},
      {kChildSpawnFailed, "child_process", {"inspect_attempt_stderr", "check_pi_installation"}},
      {kChildStdinFailed, "child_process", {"inspect_attempt_stderr", "retry_run"}},
      {kChildExitFailed, "child_process", {"inspect_attempt_stderr", "retry_run"}},
      {kChildTimeout, "child_process", {"inspect_attempt_stderr", "split_task"}},
      {kChildCancelled, "cancellation", {"retry_run"}},
      {kChildEventInvalid, "child_protocol", {"inspect_child_protocol_evidence"}},
      {kChildRuntimePayloadInvalid, "child_protocol", {"inspect_child_protocol_evidence"}},
      {kChildCachePolicyInvalid, "child_protocol", {"check_pi_cache_retention"}},
      {kChildRuntimeLimitExceeded, "child_limit", {"inspect_tool_call_seal", "split_task"}},
      {kToolAuditInvalid, "tool_audit", {"inspect_tool_call_audit_log"}},
      {kChildOutputCap, "child_limit", {"inspect_oversized_response", "split_task"}},
      {kEvaluationInvalid, "evaluation", {"inspect_evaluation_responses", "retry_run"}},
      {kArtifactError, "artifact", {"check_run_directory"}},
      {kStateTransitionInvalid, "artifact", {"check_run_directory"}},
      {kOrchestrationFailed, "orchestration", {"inspect_error_json"}},
      // The codes this project adds: each its own class, so a person (or a tool reading the
      // summary) can tell them from the generic orchestration failure an unknown code gets.
      {kValidationReportsInvalid, "validation_reports", {"inspect_reviewer_reports", "retry_run"}},
      {kHostEnded, "host", {"check_host_exit", "retry_run"}},
      {kRandomUnavailable, "system", {"check_os_randomness"}},
      {kInvalidArguments, "arguments", {"fix_tool_arguments"}},
      {kSourcePolicyInvalid, "source_policy", {"inspect_source_policy", "retry_run"}},
      {kCostCapExceeded, "cost", {"raise_or_clear_cost_cap", "choose_cheaper_routes"}},
      // A refused /fusion-resume: its message says why (completed, still running, nothing
      // verified, a file fails verification, a route no longer admitted) and what to do instead.
      {kRunNotResumable, "resume", {"read_result_or_start_new_run"}},
      // A child that stalled: its stderr shows what it did last; a model that is silent for
      // longer than the bound while it thinks needs a larger stall_seconds.
      {kChildStalled, "stall", {"inspect_attempt_stderr", "raise_stall_seconds"}},
  };
  return kRules;
}

const CodeRule* FindRule(std::string_view code) {
  for (const auto& rule : CodeRules()) {
    if (rule.code == code) return &rule;
  }
  return nullptr;
}

json Nullable(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

json TerminalError(const Manifest& m, size_t& omitted_bytes) {
  RunError e = m.error.value_or(
      RunError{kOrchestrationFailed, "no terminal error was recorded", std::nullopt});
  const std::string message = TruncateUtf8(RepairUtf8(e.message), kTerminalMessageMaxBytes);
  omitted_bytes = e.message.size() > message.size() ? e.message.size() - message.size() : 0;
  return {{"code", e.code},
          {"message", message},
          {"message_bytes", e.message.size()},
          {"stage", e.stage ? json(StageName(*e.stage)) : json(nullptr)},
          {"slot", Nullable(e.slot)},
          {"attempt", Nullable(e.attempt)}};
}

// Per stage, each slot counts once, by the state of its latest attempt.
json StageProgress(const Manifest& m, Stage stage, int slots) {
  std::map<int, const AttemptRecord*> latest;  // slot (0 for slotless stages) -> row
  int attempts = 0;
  for (const auto& a : m.attempts) {
    if (a.key.stage != stage) continue;
    ++attempts;
    const AttemptRecord*& row = latest[a.key.slot.value_or(0)];
    if (row == nullptr || row->key.attempt <= a.key.attempt) row = &a;
  }
  std::map<AttemptState, int> by_state;
  for (const auto& [slot, row] : latest) ++by_state[row->state];
  return {{"attempts", attempts},
          {"completed", by_state[AttemptState::kCompleted]},
          {"failed", by_state[AttemptState::kFailed]},
          {"cancelled", by_state[AttemptState::kCancelled]},
          {"interrupted", by_state[AttemptState::kRunning]},
          {"not_started", slots - static_cast<int>(latest.size())}};
}

json AttemptRow(const AttemptRecord& a) {
  const Usage usage = a.usage.value_or(Usage{});
  return {{"stage", StageName(a.key.stage)},
          {"slot", Nullable(a.key.slot)},
          {"attempt", a.key.attempt},
          {"state", AttemptStateName(a.state)},
          {"started_at", a.started_at},
          {"ended_at", a.ended_at ? json(*a.ended_at) : json(nullptr)},
          {"error_code", a.error ? json(a.error->code) : json(nullptr)},
          {"total_tokens", usage.total_tokens},
          {"cost_total", usage.cost.total}};
}

// The newest kSummaryMaxAttempts rows: the failing attempt is the latest one.
json AttemptRows(const Manifest& m, size_t& omitted) {
  omitted = m.attempts.size() > kSummaryMaxAttempts ? m.attempts.size() - kSummaryMaxAttempts : 0;
  json rows = json::array();
  for (size_t i = omitted; i < m.attempts.size(); ++i) rows.push_back(AttemptRow(m.attempts[i]));
  return rows;
}

json Evidence(const Manifest& m, size_t& omitted) {
  json refs = json::array();
  size_t total = 0;
  for (const auto& [name, ref] : m.artifacts) {
    if (name == kFailureSummaryFile) continue;
    ++total;
    if (refs.size() < kSummaryMaxEvidence) refs.push_back(RefToJson(ref));
  }
  omitted = total - refs.size();
  return refs;
}

}  // namespace

json RequestsJson(const Manifest& m) {
  const std::optional<uint64_t> requests = ModelRequests(m);
  return requests ? json(*requests) : json(nullptr);
}

std::vector<std::string> RemediationIds(std::string_view code, bool cancelled, bool resumable) {
  std::vector<std::string> ids;
  if (cancelled && (code == kChildCancelled || FindRule(code) == nullptr)) {
    ids = {"retry_run"};
  } else {
    const CodeRule* rule = FindRule(code);
    ids = rule != nullptr ? rule->remediation : std::vector<std::string>{"inspect_error_json"};
  }
  if (!resumable) return ids;
  // Starting a resumable run again pays again for the answers it already has: the advice is the
  // resume, in place of the retry (or after the rest, for a code that never suggested one).
  std::erase(ids, "retry_run");
  ids.push_back("resume_run");
  return ids;
}

std::string_view FailureClass(std::string_view code) {
  const CodeRule* rule = FindRule(code);
  return rule != nullptr ? rule->failure_class : "orchestration";
}

json FailureProgress(const Manifest& m) {
  json progress = {{"children_started", m.attempts.size()},
                   {"candidates", StageProgress(m, Stage::kCandidate, 3)},
                   {"evaluation", StageProgress(m, Stage::kEvaluation, 1)},
                   {"merge", StageProgress(m, Stage::kMerge, 1)}};
  // The policies' checks (the adaptive panel's agreement check, the order check) have a row only
  // when the run asked them: a run without them keeps the seed's shape.
  for (Stage check : {Stage::kAgreement, Stage::kOrderCheck}) {
    const bool asked = std::ranges::any_of(
        m.attempts, [&](const AttemptRecord& a) { return a.key.stage == check; });
    if (asked) progress[std::string(StageName(check))] = StageProgress(m, check, 1);
  }
  return progress;
}

json BuildFailureSummary(const Manifest& m, const std::string& created_at) {
  size_t message_omitted = 0, attempts_omitted = 0, evidence_omitted = 0;
  json terminal_error = TerminalError(m, message_omitted);
  const std::string code = terminal_error["code"];
  const bool cancelled = m.state == RunState::kCancelled;
  json attempts = AttemptRows(m, attempts_omitted);
  json evidence = Evidence(m, evidence_omitted);
  return {{"schema_version", kFailureSummarySchema},
          {"run_id", m.run_id},
          {"workflow", m.workflow},
          {"state", RunStateName(m.state)},
          {"created_at", created_at},
          {"answer", {{"present", false}, {"reason", "run_did_not_commit"}}},
          {"terminal_error", std::move(terminal_error)},
          {"progress", FailureProgress(m)},
          {"usage", UsageToJson(m.usage)},
          {"usage_by_role", UsageByRoleJson(UsageByRole(m))},
          {"model_requests", RequestsJson(m)},
          {"attempts", std::move(attempts)},
          {"evidence", std::move(evidence)},
          {"classifications",
           {{"failure_class", cancelled ? "cancellation" : std::string(FailureClass(code))},
            {"cancelled", cancelled},
            {"before_any_child", m.attempts.empty()}}},
          {"remediation_ids", RemediationIds(code, cancelled, CheckResumable(m).ok())},
          {"omitted",
           {{"attempts", attempts_omitted},
            {"evidence", evidence_omitted},
            {"terminal_message_bytes", message_omitted}}}};
}

Status CheckFailureSummary(const json& summary, const Manifest& m) {
  static const std::set<std::string> kKeys = {
      "schema_version", "run_id",          "workflow",        "state",  "created_at",
      "answer",         "terminal_error",  "progress",        "usage",  "attempts",
      "evidence",       "classifications", "remediation_ids", "omitted"};
  auto differs = [](const std::string& what) {
    return Status::Error(kArtifactError, "failure-summary.json " + what);
  };
  if (!summary.is_object()) return differs("is not an object");
  // Added later, so summaries written before them still verify.
  static const std::set<std::string> kOptionalKeys = {"usage_by_role", "model_requests"};
  for (auto it = summary.begin(); it != summary.end(); ++it) {
    if (kKeys.count(it.key()) == 0 && kOptionalKeys.count(it.key()) == 0) {
      return differs("has an unknown key");
    }
  }
  for (const auto& key : kKeys) {
    if (!summary.contains(key)) return differs("is missing \"" + key + "\"");
  }
  if (summary["schema_version"] != kFailureSummarySchema) return differs("has another schema id");
  if (summary["run_id"] != m.run_id) return differs("run_id does not match the manifest");
  if (summary["workflow"] != m.workflow) return differs("workflow does not match the manifest");
  if (summary["state"] != RunStateName(m.state))
    return differs("state does not match the manifest");
  const json& answer = summary["answer"];
  if (answer != json{{"present", false}, {"reason", "run_did_not_commit"}}) {
    return differs("does not assert that no answer exists");
  }
  for (const char* key : {"attempts", "evidence", "remediation_ids"}) {
    if (!summary[key].is_array()) return differs(std::string(key) + " is not an array");
  }
  for (const char* key : {"terminal_error", "progress", "usage", "omitted"}) {
    if (!summary[key].is_object()) return differs(std::string(key) + " is not an object");
  }
  return Status::Ok();
}

}  // namespace pi_fusion::store
