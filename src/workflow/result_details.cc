#include "workflow/result_details.h"

#include <algorithm>
#include <initializer_list>
#include <regex>
#include <set>

#include "core/role.h"
#include "store/manifest.h"
#include "store/run_id.h"
#include "workflow/workflow_constants.h"

namespace pi_fusion::workflow {
namespace {

using nlohmann::json;

Status Invalid(const std::string& message) {
  return Status::Error(std::string(kOrchestrationFailed), "result details: " + message);
}

bool IsStage(const std::string& stage) {
  return std::any_of(kAllRoles.begin(), kAllRoles.end(),
                     [&stage](Role role) { return PlanStageName(role) == stage; });
}

bool IsOneOf(const std::string& key, std::initializer_list<const char*> keys) {
  return std::any_of(keys.begin(), keys.end(), [&key](const char* k) { return key == k; });
}

// Numbers under `required` must be present, `optional` may be; nothing else is allowed.
Status CheckNumbers(const json& object, const std::string& label,
                    std::initializer_list<const char*> required,
                    std::initializer_list<const char*> optional, const char* nested) {
  if (!object.is_object()) return Invalid(label + " must be an object");
  for (const auto& [key, value] : object.items()) {
    if (nested != nullptr && key == nested) continue;
    if (!IsOneOf(key, required) && !IsOneOf(key, optional))
      return Invalid(label + "." + key + " is not a Usage field");
    const bool is_flag = key == "totalFromProvider";
    if (is_flag ? !value.is_boolean() : !value.is_number()) {
      return Invalid(label + "." + key + (is_flag ? " must be a boolean" : " must be a number"));
    }
  }
  for (const char* key : required) {
    if (!object.contains(key)) return Invalid(label + "." + key + " is missing");
  }
  return Status::Ok();
}

Status CheckUsage(const json& usage, const std::string& label = "usage") {
  Status s =
      CheckNumbers(usage, label, {"input", "output", "cacheRead", "cacheWrite", "totalTokens"},
                   {"cacheWrite1h", "reasoning"}, "cost");
  if (!s.ok()) return s;
  if (!usage.contains("cost")) return Invalid(label + ".cost is missing");
  return CheckNumbers(usage["cost"], label + ".cost",
                      {"input", "output", "cacheRead", "cacheWrite", "total"},
                      {"totalFromProvider"}, nullptr);
}

// The rows of store::UsageByRoleJson: a known role, its route, at least one attempt, a request
// count or null, a Usage object, and a resumed run's reused_from run id; nothing else.
Status CheckUsageByRole(const json& rows) {
  if (!rows.is_array() || rows.size() > 6) return Invalid("usage_by_role must be an array of rows");
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    const std::string label = "usage_by_role[" + std::to_string(i) + "]";
    if (!row.is_object()) return Invalid(label + " must be an object");
    for (const auto& [key, value] : row.items()) {
      if (!IsOneOf(key,
                   {"role", "slot", "model", "attempts", "requests", "usage", "reused_from"})) {
        return Invalid(label + "." + key + " is not a role usage field");
      }
    }
    const std::optional<Role> role = ParseRole(row.value("role", ""));
    if (!role) return Invalid(label + ".role is not a role");
    const json slot = row.value("slot", json());
    if ((*role == Role::kCandidate) != (slot.is_number_integer() && slot >= 1 && slot <= 3)) {
      return Invalid(label + ".slot must be 1-3 exactly for a candidate");
    }
    if (!row.value("model", json()).is_string() || row["model"].get<std::string>().empty()) {
      return Invalid(label + ".model must name the route");
    }
    const json attempts = row.value("attempts", json());
    const json requests = row.value("requests", json());
    if (!attempts.is_number_integer() || attempts < 1) {
      return Invalid(label + ".attempts must be at least 1");
    }
    if (!row.contains("requests") ||
        !(requests.is_null() || (requests.is_number_integer() && requests >= 0))) {
      return Invalid(label + ".requests must be a count or null");
    }
    if (Status s = CheckUsage(row.value("usage", json()), label + ".usage"); !s.ok()) return s;
    if (row.contains("reused_from") &&
        (!row["reused_from"].is_string() ||
         !store::IsValidRunId(row["reused_from"].get<std::string>()))) {
      return Invalid(label + ".reused_from must be a run id");
    }
  }
  return Status::Ok();
}

Status CheckIdentity(const ResultDetailsInput& in) {
  if (!store::IsValidRunId(in.run_id)) return Invalid("malformed run_id " + in.run_id);
  if (store::RunIdWorkflow(in.run_id) != in.workflow) {
    return Invalid("run_id " + in.run_id + " does not belong to workflow " + in.workflow);
  }
  const ModelsUsed& m = in.models;
  for (const std::string* s : {&m.candidates[0], &m.candidates[1], &m.candidates[2], &m.evaluator,
                               &m.merger, &m.thinking_level}) {
    if (s->empty()) return Invalid("models must name every route and the thinking level");
  }
  if (!AnonymousMapFromJson(in.anonymous_map.ToJson()).ok()) {
    return Invalid("anonymous_map is not a bijection of A, B, C onto slots 1-3");
  }
  return Status::Ok();
}

Result<json> Artifacts(const std::vector<ResultArtifact>& artifacts) {
  static const std::regex kSha("^sha256:[0-9a-f]{64}$");
  json out = json::object();
  for (const ResultArtifact& a : artifacts) {
    if (a.name.empty() || a.path.empty()) return Invalid("an artifact has no name or path");
    if (out.contains(a.name)) return Invalid("artifact " + a.name + " listed twice");
    if (!std::regex_match(a.sha256, kSha)) return Invalid("artifact " + a.name + " has a bad hash");
    out[a.name] = {{"path", a.path}, {"byte_length", a.byte_length}, {"sha256", a.sha256}};
  }
  return out;
}

Result<json> Warnings(const std::vector<ResultWarning>& warnings) {
  json out = json::array();
  for (const ResultWarning& w : warnings) {
    if (w.kind != "budget" && w.kind != "calibration" && w.kind != "child_wrapper") {
      return Invalid("warning kind " + w.kind);
    }
    if (w.stage && !IsStage(*w.stage)) return Invalid("warning stage " + *w.stage);
    if (w.message.empty()) return Invalid("a warning has no message");
    json row = {{"kind", w.kind}, {"message", w.message}};
    if (w.stage) row["stage"] = *w.stage;
    out.push_back(std::move(row));
  }
  return out;
}

Result<json> ToolRefusals(const std::vector<ToolRefusalRow>& rows) {
  int previous = 0;
  for (const ToolRefusalRow& row : rows) {
    if (row.slot <= previous || row.slot > 3) return Invalid("tool_refusals slots out of order");
    previous = row.slot;
    if (row.by_code.empty()) return Invalid("tool_refusals lists a candidate with no refusal");
    for (const auto& [code, n] : row.by_code) {
      if (code.empty() || n < 1) return Invalid("tool_refusals has an empty code or count");
    }
  }
  return ToolRefusalsJson(rows);
}

Result<json> DroppedReviewers(const std::vector<DroppedReviewerRow>& rows) {
  json out = json::array();
  for (const DroppedReviewerRow& row : rows) {
    if (row.slot < 1 || row.slot > 3 || row.code.empty()) {
      return Invalid("a dropped reviewer has no slot or code");
    }
    out.push_back({{"slot", row.slot}, {"code", row.code}, {"message", row.message}});
  }
  if (out.size() > 1) return Invalid("more than one dropped reviewer");
  return out;
}

json Attempts(const AttemptCounts& a) {
  return {{"candidate", a.candidate},
          {"evaluation", a.evaluation},
          {"evaluation_repair", a.evaluation_repair},
          {"merge", a.merge},
          {"total", a.candidate + a.evaluation + a.evaluation_repair + a.merge}};
}

}  // namespace

json ToolRefusalsJson(const std::vector<ToolRefusalRow>& rows) {
  json out = json::array();
  for (const ToolRefusalRow& row : rows) {
    int64_t count = 0;
    for (const auto& [code, n] : row.by_code) count += n;
    out.push_back({{"slot", row.slot}, {"count", count}, {"by_code", row.by_code}});
  }
  return out;
}

Result<json> BuildResultDetails(const ResultDetailsInput& in) {
  if (Status s = CheckIdentity(in); !s.ok()) return s;
  if (Status s = CheckUsage(in.usage); !s.ok()) return s;
  const AttemptCounts& a = in.attempts;
  if (a.candidate < 0 || a.evaluation < 0 || a.merge < 0 || a.evaluation_repair < 0 ||
      a.evaluation_repair > 1) {
    return Invalid("attempt counts out of range");
  }
  Result<json> artifacts = Artifacts(in.artifacts);
  if (!artifacts.ok()) return artifacts.status();
  Result<json> warnings = Warnings(in.warnings);
  if (!warnings.ok()) return warnings.status();
  Result<json> refusals = ToolRefusals(in.tool_refusals);
  if (!refusals.ok()) return refusals.status();
  if (!in.child_wrapper.empty() && in.child_wrapper.front() != '/') {
    return Invalid("child_wrapper " + in.child_wrapper + " is not an absolute path");
  }
  json details{{"schema_version", kResultSchema},
               {"run_id", in.run_id},
               {"workflow", in.workflow},
               {"models",
                {{"candidates", in.models.candidates},
                 {"evaluator", in.models.evaluator},
                 {"merger", in.models.merger},
                 {"thinking_level", in.models.thinking_level}}},
               {"anonymous_map", in.anonymous_map.ToJson()},
               {"usage", in.usage},
               {"attempts", Attempts(a)},
               {"artifacts", std::move(artifacts).value()},
               {"warnings", std::move(warnings).value()},
               {"tool_refusals", std::move(refusals).value()}};
  if (!in.usage_by_role.is_null()) {
    if (Status s = CheckUsageByRole(in.usage_by_role); !s.ok()) return s;
    details["usage_by_role"] = in.usage_by_role;
  }
  if (in.model_requests) details["model_requests"] = *in.model_requests;
  if (in.dropped_reviewers) {
    Result<json> dropped = DroppedReviewers(*in.dropped_reviewers);
    if (!dropped.ok()) return dropped.status();
    details["dropped_reviewers"] = std::move(dropped).value();
  }
  if (in.resumed_from) details["resumed_from"] = *in.resumed_from;
  if (!in.degraded.is_null()) {
    const json& d = in.degraded;
    if (!d.is_object() || !d.contains("slot") || !d["slot"].is_number_integer() ||
        d["slot"].get<int64_t>() < 1 || d["slot"].get<int64_t>() > 3 || !d.contains("reason")) {
      return Invalid("degraded is not a record of the candidate left out");
    }
    details["degraded"] = d;
  }
  if (!in.adaptive.is_null()) {
    const json& a = in.adaptive;
    if (!a.is_object() || !a.contains("agree") || !a["agree"].is_boolean()) {
      return Invalid("adaptive is not a record of an adaptive run's decision");
    }
    details["adaptive"] = a;
  }
  if (!in.child_wrapper.empty()) details["child_wrapper"] = in.child_wrapper;
  if (!in.source_failures.empty()) {
    json failures = json::array();
    for (const SourceFailureRow& row : in.source_failures) {
      if (row.url.empty() || row.code.empty())
        return Invalid("a source failure has no url or code");
      failures.push_back({{"url", row.url}, {"code", row.code}});
    }
    details["source_failures"] = std::move(failures);
  }
  if (in.no_source_fetched) details["no_source_fetched"] = true;
  if (!in.estimate.is_null()) {
    if (!in.estimate.is_object() || !in.estimate.value("expected_usd", json()).is_number() ||
        !in.estimate.value("worst_case_usd", json()).is_number()) {
      return Invalid("estimate is not a cost estimate summary");
    }
    details["estimate"] = in.estimate;
  }
  if (!in.citations.is_null()) {
    if (!store::IsCitationsRecord(in.citations)) return Invalid("citations is not a check record");
    details["citations"] = in.citations;
  }
  if (!in.agreement.is_null()) {
    if (!store::IsAgreementRecord(in.agreement)) return Invalid("agreement is not a record");
    details["agreement"] = in.agreement;
  }
  if (!in.order_check.is_null()) {
    if (!store::IsOrderCheckRecord(in.order_check)) return Invalid("order_check is not a record");
    details["order_check"] = in.order_check;
  }
  if (!in.checked_claims.is_null()) {
    if (!in.checked_claims.is_array()) return Invalid("checked_claims is not a list");
    details["checked_claims"] = in.checked_claims;
  }
  return details;
}

}  // namespace pi_fusion::workflow
