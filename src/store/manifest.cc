#include "store/manifest.h"

#include "core/durable_file.h"
#include "store/constants.h"
#include "store/json_util.h"
#include "store/run_id.h"
#include "store/run_paths.h"
#include "store/wall_clock.h"

namespace pi_fusion::store {
namespace {

using nlohmann::json;

json OptionalInt(const std::optional<int>& v) { return v ? json(*v) : json(nullptr); }

std::optional<int> ReadOptionalInt(FieldReader& r, const char* key) {
  auto v = r.NullableCount(key);
  if (!v) return std::nullopt;
  if (*v > 1000000) r.Fail(std::string("\"") + key + "\" is out of range");
  return static_cast<int>(*v);
}

std::string ReadTimestamp(FieldReader& r, const char* key) {
  std::string t = r.String(key);
  if (r.Has(key) && !IsTimestamp(t))
    r.Fail(std::string("\"") + key + "\" is not an RFC 3339 UTC time");
  return t;
}

json ModelToJson(const ModelSelection& m) { return {{"provider", m.provider}, {"model", m.model}}; }

ModelSelection ReadModel(const json& value, const std::string& where, Status& status) {
  FieldReader r(value, where);
  ModelSelection m{r.String("provider"), r.String("model")};
  if (status.ok()) status = r.Finish();
  return m;
}

json ModelsToJson(const RunModels& m) {
  json candidates = json::array();
  for (const auto& c : m.candidates) candidates.push_back(ModelToJson(c));
  json out = {{"candidates", std::move(candidates)},
              {"evaluator", ModelToJson(m.evaluator)},
              {"merger", ModelToJson(m.merger)},
              {"thinking_level", m.thinking_level}};
  if (m.role_thinking) {
    out["thinking"] = {{"candidates", m.role_thinking->candidates},
                       {"evaluator", m.role_thinking->evaluator},
                       {"merger", m.role_thinking->merger}};
  }
  return out;
}

RoleThinkingLevels ReadRoleThinking(const json& value, const std::string& where, Status& status) {
  FieldReader r(value, where);
  RoleThinkingLevels levels{r.String("candidates"), r.String("evaluator"), r.String("merger")};
  if (status.ok()) status = r.Finish();
  return levels;
}

Result<RunModels> ModelsFromJson(const json& value) {
  FieldReader r(value, "manifest.json models");
  RunModels m;
  const json& candidates = r.Array("candidates");
  Status s;
  if (candidates.is_array() && candidates.size() != 3) r.Fail("needs exactly 3 candidates");
  if (candidates.is_array() && candidates.size() == 3) {
    for (size_t i = 0; i < 3; ++i) {
      m.candidates[i] =
          ReadModel(candidates[i], r.where() + " candidates[" + std::to_string(i) + "]", s);
    }
  }
  m.evaluator = ReadModel(r.Object("evaluator"), r.where() + " evaluator", s);
  m.merger = ReadModel(r.Object("merger"), r.where() + " merger", s);
  m.thinking_level = r.String("thinking_level");
  if (r.Has("thinking")) {
    m.role_thinking = ReadRoleThinking(r.Object("thinking"), r.where() + " thinking", s);
  }
  Status finish = r.Finish();
  if (!finish.ok()) return finish;
  if (!s.ok()) return s;
  return m;
}

json ChildExitToJson(const ChildExitRecord& e) {
  json out = {{"code", OptionalInt(e.code)},
              {"signal", OptionalInt(e.signal)},
              {"stop_reason", e.stop_reason},
              {"after_answer", e.after_answer}};
  if (e.exited_at) out["exited_at"] = *e.exited_at;
  return out;
}

Result<ChildExitRecord> ChildExitFromJson(const json& value, const std::string& where) {
  FieldReader r(value, where + " exit");
  ChildExitRecord e;
  e.code = ReadOptionalInt(r, "code");
  e.signal = ReadOptionalInt(r, "signal");
  e.stop_reason = r.String("stop_reason");
  e.after_answer = r.Bool("after_answer");
  if (r.Has("exited_at")) e.exited_at = ReadTimestamp(r, "exited_at");
  if (e.stop_reason.empty()) r.Fail("\"stop_reason\" is empty");
  if (e.code && e.signal) r.Fail("has both an exit code and a signal");
  Status s = r.Finish();
  if (!s.ok()) return s;
  return e;
}

json AttemptToJson(const AttemptRecord& a) {
  json error =
      a.error ? json{{"code", a.error->code}, {"message", a.error->message}} : json(nullptr);
  json out = {{"stage", StageName(a.key.stage)},
              {"slot", OptionalInt(a.key.slot)},
              {"attempt", a.key.attempt},
              {"state", AttemptStateName(a.state)},
              {"started_at", a.started_at},
              {"ended_at", a.ended_at ? json(*a.ended_at) : json(nullptr)},
              {"usage", a.usage ? UsageToJson(*a.usage) : json(nullptr)},
              {"error", std::move(error)},
              {"artifacts", a.artifacts}};
  if (a.requests) out["requests"] = *a.requests;
  if (a.first_output_at) out["first_output_at"] = *a.first_output_at;
  if (a.exit) out["exit"] = ChildExitToJson(*a.exit);
  if (a.reused_from) out["reused_from"] = *a.reused_from;
  if (a.pooled) {
    out["pooled"] = {{"task", a.pooled->task},
                     {"process_started_at", a.pooled->process_started_at}};
  }
  return out;
}

Result<AttemptError> AttemptErrorFromJson(const json& value, const std::string& where) {
  FieldReader r(value, where + " error");
  AttemptError e{r.String("code"), r.String("message")};
  Status s = r.Finish();
  if (!s.ok()) return s;
  return e;
}

Result<AttemptRecord> AttemptFromJson(const json& value, const std::string& where) {
  FieldReader r(value, where);
  AttemptRecord a;
  const auto stage = ParseStage(r.String("stage"));
  if (!stage) r.Fail("has an unknown stage");
  a.key.stage = stage.value_or(Stage::kCandidate);
  a.key.slot = ReadOptionalInt(r, "slot");
  a.key.attempt = static_cast<int>(r.Count("attempt"));
  const auto state = ParseAttemptState(r.String("state"));
  if (!state) r.Fail("has an unknown state");
  a.state = state.value_or(AttemptState::kRunning);
  a.started_at = ReadTimestamp(r, "started_at");
  a.ended_at = r.NullableString("ended_at");
  if (a.ended_at && !IsTimestamp(*a.ended_at)) r.Fail("\"ended_at\" is not an RFC 3339 UTC time");
  const json& usage = r.Value("usage");
  const json& error = r.Value("error");
  const json& artifacts = r.Array("artifacts");
  const json* exit = r.Has("exit") ? &r.Value("exit") : nullptr;
  if (r.Has("requests")) a.requests = r.Count("requests");
  if (r.Has("first_output_at")) a.first_output_at = ReadTimestamp(r, "first_output_at");
  if (r.Has("reused_from")) {
    a.reused_from = r.String("reused_from");
    if (!IsValidRunId(*a.reused_from)) r.Fail("\"reused_from\" is not a run id");
  }
  const json* pooled = r.Has("pooled") ? &r.Object("pooled") : nullptr;
  Status s = r.Finish();
  if (s.ok()) s = ValidateAttemptKey(a.key);
  if (!s.ok()) return Status::Error(kArtifactError, s.message());
  if (!usage.is_null()) {
    auto u = UsageFromJson(usage, where + " usage");
    if (!u.ok()) return u.status();
    a.usage = u.value();
  }
  if (!error.is_null()) {
    auto e = AttemptErrorFromJson(error, where);
    if (!e.ok()) return e.status();
    a.error = e.value();
  }
  if (pooled != nullptr) {
    FieldReader p(*pooled, where + " pooled");
    PooledRecord record;
    record.task = static_cast<int64_t>(p.Count("task"));
    record.process_started_at = ReadTimestamp(p, "process_started_at");
    if (record.task < 1) p.Fail("\"task\" is not a task number from 1");
    if (Status done = p.Finish(); !done.ok()) return Status::Error(kArtifactError, done.message());
    a.pooled = std::move(record);
  }
  if (exit != nullptr) {
    auto e = ChildExitFromJson(*exit, where);
    if (!e.ok()) return Status::Error(kArtifactError, e.status().message());
    a.exit = e.value();
  }
  for (const json& name : artifacts) {
    if (!name.is_string())
      return Status::Error(kArtifactError, where + " artifacts holds a non-string");
    a.artifacts.push_back(name.get<std::string>());
  }
  return a;
}

Status ReadAttempts(const json& array, Manifest& m) {
  for (size_t i = 0; i < array.size(); ++i) {
    auto a = AttemptFromJson(array[i], "manifest.json attempts[" + std::to_string(i) + "]");
    if (!a.ok()) return a.status();
    m.attempts.push_back(std::move(a).value());
  }
  std::vector<Usage> usages;
  for (const auto& a : m.attempts) {
    if (a.usage) usages.push_back(*a.usage);
  }
  if (!(SumUsage(usages) == m.usage)) {
    return Status::Error(kArtifactError, "manifest.json usage is not the sum of its attempts");
  }
  return Status::Ok();
}

json WarmChildToJson(const WarmChildRecord& w) {
  return {{"stage", StageName(w.stage)},
          {"outcome", WarmChildOutcomeName(w.outcome)},
          {"started_at", w.started_at},
          {"ended_at", w.ended_at},
          {"note", w.note}};
}

json DroppedReviewerToJson(const DroppedReviewerRecord& d) {
  return {{"slot", d.slot}, {"code", d.code}, {"message", d.message}};
}

Status ReadDroppedReviewers(const json& array, Manifest& m) {
  if (!array.is_array() || array.empty()) {
    return Status::Error(kArtifactError,
                         "manifest.json dropped_reviewers is not a non-empty array");
  }
  for (size_t i = 0; i < array.size(); ++i) {
    FieldReader r(array[i], "manifest.json dropped_reviewers[" + std::to_string(i) + "]");
    DroppedReviewerRecord d;
    const uint64_t slot = r.Count("slot");
    if (slot < 1 || slot > 3) r.Fail("has a slot that is not 1, 2 or 3");
    d.slot = static_cast<int>(slot);
    d.code = r.String("code");
    if (d.code.empty()) r.Fail("has an empty code");
    d.message = r.String("message");
    if (Status s = r.Finish(); !s.ok()) return s;
    m.dropped_reviewers.push_back(std::move(d));
  }
  return Status::Ok();
}

}  // namespace

json DegradedToJson(const DegradedRecord& d) {
  return {{"slot", d.slot},
          {"model", d.model},
          {"reason", d.reason},
          {"code", d.code ? json(*d.code) : json(nullptr)},
          {"grace_seconds", d.grace_seconds ? json(*d.grace_seconds) : json(nullptr)}};
}

json AdaptiveToJson(const AdaptiveRecord& a) {
  return {{"agree", a.agree},
          {"decided_by", a.decided_by},
          {"differences", a.differences},
          {"check_cost_usd", a.check_cost_usd ? json(*a.check_cost_usd) : json(nullptr)},
          {"reused", a.reused}};
}

Result<AdaptiveRecord> AdaptiveFromJson(const json& value, const std::string& where) {
  FieldReader r(value, where);
  AdaptiveRecord a;
  const json& agree = r.Value("agree");
  if (!agree.is_boolean()) r.Fail("has an agree that is not a boolean");
  a.agree = agree.is_boolean() && agree.get<bool>();
  a.decided_by = r.String("decided_by");
  if (a.decided_by != "identical" && a.decided_by != "check") {
    r.Fail("has a decided_by that is not identical or check");
  }
  const json& differences = r.Value("differences");
  if (!differences.is_array()) r.Fail("has differences that are not an array");
  for (const json& d : differences.is_array() ? differences : json::array()) {
    if (!d.is_string()) {
      r.Fail("has a difference that is not a string");
      continue;
    }
    a.differences.push_back(d.get<std::string>());
  }
  if (a.agree != a.differences.empty()) r.Fail("has differences that do not match agree");
  const json& cost = r.Value("check_cost_usd");
  if (cost.is_number() && cost.get<double>() >= 0) {
    a.check_cost_usd = cost.get<double>();
  } else if (!cost.is_null()) {
    r.Fail("has a check_cost_usd that is neither a number >= 0 nor null");
  }
  const json& reused = r.Value("reused");
  if (!reused.is_boolean()) r.Fail("has a reused that is not a boolean");
  a.reused = reused.is_boolean() && reused.get<bool>();
  if (Status s = r.Finish(); !s.ok()) return s;
  return a;
}

Result<DegradedRecord> DegradedFromJson(const json& value, const std::string& where) {
  FieldReader r(value, where);
  DegradedRecord d;
  const uint64_t slot = r.Count("slot");
  if (slot < 1 || slot > 3) r.Fail("has a slot that is not 1, 2 or 3");
  d.slot = static_cast<int>(slot);
  d.model = r.String("model");
  d.reason = r.String("reason");
  d.code = r.NullableString("code");
  const json& grace = r.Value("grace_seconds");
  if (grace.is_number() && grace.get<double>() >= 0) {
    d.grace_seconds = grace.get<double>();
  } else if (!grace.is_null()) {
    r.Fail("has a grace_seconds that is neither a number >= 0 nor null");
  }
  // A failed candidate names its code and no grace; a cut one its grace and no code.
  if (d.reason == "failed") {
    if (!d.code || d.code->empty() || d.grace_seconds) r.Fail("failed needs a code and no grace");
  } else if (d.reason == "cut_after_grace") {
    if (d.code || !d.grace_seconds) r.Fail("cut_after_grace needs a grace and no code");
  } else {
    r.Fail("has a reason that is not failed or cut_after_grace");
  }
  if (d.model.empty()) r.Fail("has an empty model");
  if (Status s = r.Finish(); !s.ok()) return s;
  return d;
}

namespace {

Status ReadWarmChildren(const json& array, Manifest& m) {
  if (!array.is_array())
    return Status::Error(kArtifactError, "manifest.json warm_children is not an array");
  for (size_t i = 0; i < array.size(); ++i) {
    FieldReader r(array[i], "manifest.json warm_children[" + std::to_string(i) + "]");
    WarmChildRecord w;
    const auto stage = ParseStage(r.String("stage"));
    if (!stage || *stage == Stage::kCandidate)
      r.Fail("has a stage that is not evaluation or merge");
    w.stage = stage.value_or(Stage::kEvaluation);
    const std::string outcome = r.String("outcome");
    if (outcome == "unused") {
      w.outcome = WarmChildOutcome::kUnused;
    } else if (outcome == "replaced") {
      w.outcome = WarmChildOutcome::kReplaced;
    } else {
      r.Fail("has an outcome that is not unused or replaced");
    }
    w.started_at = ReadTimestamp(r, "started_at");
    w.ended_at = ReadTimestamp(r, "ended_at");
    w.note = r.String("note");
    if (Status s = r.Finish(); !s.ok()) return s;
    m.warm_children.push_back(std::move(w));
  }
  return Status::Ok();
}

Status ReadArtifacts(const json& object, Manifest& m) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    auto ref = RefFromJson(it.value(), "manifest.json artifacts." + it.key());
    if (!ref.ok()) return ref.status();
    if (ref->path != it.key()) {
      return Status::Error(kArtifactError,
                           "manifest.json artifacts." + it.key() + " has path " + ref->path);
    }
    m.artifacts.emplace(it.key(), std::move(ref).value());
  }
  return Status::Ok();
}

// The identity and scalar fields; problems are recorded on `r`.
void ReadHeader(FieldReader& r, Manifest& m) {
  if (const std::string schema = r.String("schema_version");
      schema != kManifestSchema && schema != kManifestSchemaV4) {
    r.Fail("schema_version is not " + std::string(kManifestSchema));
  }
  m.run_id = r.String("run_id");
  m.workflow = r.String("workflow");
  if (!IsValidRunId(m.run_id))
    r.Fail("run_id is not a valid run id");
  else if (RunIdWorkflow(m.run_id) != m.workflow)
    r.Fail("workflow does not match run_id");
  const auto source = ParseRunSource(r.String("source"));
  if (!source) r.Fail("source is not command or tool");
  m.source = source.value_or(RunSource::kTool);
  const auto state = ParseRunState(r.String("state"));
  if (!state) r.Fail("state is unknown");
  m.state = state.value_or(RunState::kInitializing);
  m.created_at = ReadTimestamp(r, "created_at");
  m.updated_at = ReadTimestamp(r, "updated_at");
  m.cwd = r.String("cwd");
  m.config = r.Object("config");
  m.capabilities = r.Object("capabilities");
  m.context = r.Object("context");
  m.tool_policy = r.Object("tool_policy");
  m.anonymous_map = r.Value("anonymous_map");
  if (!m.anonymous_map.is_null() && !m.anonymous_map.is_object())
    r.Fail("anonymous_map is not an object or null");
}

}  // namespace

Status ValidateAttemptKey(const AttemptKey& key) {
  const bool slot_ok = key.stage == Stage::kCandidate
                           ? key.slot.has_value() && *key.slot >= 1 && *key.slot <= 3
                           : !key.slot.has_value();
  if (slot_ok && key.attempt >= 1) return Status::Ok();
  return Status::Error(kArtifactError,
                       "invalid attempt key for stage " + std::string(StageName(key.stage)));
}

const std::string& RunModels::ThinkingOf(Role role) const {
  if (!role_thinking) return thinking_level;
  switch (role) {
    case Role::kCandidate:
      return role_thinking->candidates;
    case Role::kEvaluator:
    case Role::kRepair:
      return role_thinking->evaluator;
    case Role::kMerger:
      break;
  }
  return role_thinking->merger;
}

const char* WarmChildOutcomeName(WarmChildOutcome outcome) {
  return outcome == WarmChildOutcome::kReplaced ? "replaced" : "unused";
}

std::string AttemptPrefix(const AttemptKey& key) {
  std::string prefix(StageName(key.stage));
  if (key.slot) prefix += "-" + std::to_string(*key.slot);
  return prefix + ".attempt-" + std::to_string(key.attempt);
}

bool IsWalkProtection(std::string_view name) {
  return name == "namespace+landlock" || name == "namespace" || name == "landlock" ||
         name == "none";
}

json RunErrorToJson(const RunError& e) {
  return {{"code", e.code},
          {"message", e.message},
          {"stage", e.stage ? json(StageName(*e.stage)) : json(nullptr)},
          {"slot", OptionalInt(e.slot)},
          {"attempt", OptionalInt(e.attempt)},
          {"cancelled_by", e.cancelled_by ? json(*e.cancelled_by) : json(nullptr)}};
}

Result<RunError> RunErrorFromJson(const json& value, std::string_view where) {
  FieldReader r(value, std::string(where));
  RunError e;
  e.code = r.String("code");
  e.message = r.String("message");
  if (auto stage = r.NullableString("stage")) {
    e.stage = ParseStage(*stage);
    if (!e.stage) r.Fail("has an unknown stage");
  }
  e.slot = ReadOptionalInt(r, "slot");
  e.attempt = ReadOptionalInt(r, "attempt");
  // fusion-manifest.v5: who cancelled the run; absent in v4, where the message says it.
  if (value.is_object() && value.contains("cancelled_by"))
    e.cancelled_by = r.NullableString("cancelled_by");
  Status s = r.Finish();
  if (!s.ok()) return s;
  return e;
}

json ManifestToJson(const Manifest& m) {
  json attempts = json::array();
  for (const auto& a : m.attempts) attempts.push_back(AttemptToJson(a));
  json artifacts = json::object();
  for (const auto& [name, ref] : m.artifacts) artifacts[name] = RefToJson(ref);
  json out = {{"schema_version", kManifestSchema},
              {"run_id", m.run_id},
              {"workflow", m.workflow},
              {"source", RunSourceName(m.source)},
              {"state", RunStateName(m.state)},
              {"created_at", m.created_at},
              {"updated_at", m.updated_at},
              {"cwd", m.cwd},
              {"config", m.config},
              {"models", ModelsToJson(m.models)},
              {"capabilities", m.capabilities},
              {"context", m.context},
              {"tool_policy", m.tool_policy},
              {"usage", UsageToJson(m.usage)},
              {"attempts", std::move(attempts)},
              {"artifacts", std::move(artifacts)},
              {"anonymous_map", m.anonymous_map},
              {"error", m.error ? RunErrorToJson(*m.error) : json(nullptr)}};
  if (!m.warm_children.empty()) {
    json warm = json::array();
    for (const auto& w : m.warm_children) warm.push_back(WarmChildToJson(w));
    out["warm_children"] = std::move(warm);
  }
  if (!m.dropped_reviewers.empty()) {
    json dropped = json::array();
    for (const auto& d : m.dropped_reviewers) dropped.push_back(DroppedReviewerToJson(d));
    out["dropped_reviewers"] = std::move(dropped);
  }
  if (m.degraded) out["degraded"] = DegradedToJson(*m.degraded);
  if (m.adaptive) out["adaptive"] = AdaptiveToJson(*m.adaptive);
  if (m.resumed_from) out["resumed_from"] = *m.resumed_from;
  if (m.panel) out["panel"] = *m.panel;
  if (m.walk_protection) out["walk_protection"] = *m.walk_protection;
  if (!m.citations.is_null()) out["citations"] = m.citations;
  if (!m.agreement.is_null()) out["agreement"] = m.agreement;
  if (!m.order_check.is_null()) out["order_check"] = m.order_check;
  return out;
}

bool IsCitationsRecord(const json& value) {
  if (!value.is_object() || !value.value("checked", json()).is_number_unsigned() ||
      !value.value("broken", json()).is_array()) {
    return false;
  }
  for (const json& row : value["broken"]) {
    const std::string reason = row.is_object() ? row.value("reason", std::string()) : "";
    if (!row.value("ref", json()).is_string() || !row.value("detail", json()).is_string() ||
        (reason != "missing_file" && reason != "past_end" && reason != "quote_not_found" &&
         reason != "not_checkable")) {
      return false;
    }
  }
  return true;
}

bool IsAgreementRecord(const json& value) {
  if (!value.is_object() || !value.value("agreements", json()).is_number_unsigned() ||
      !value.value("conflicts", json()).is_number_unsigned()) {
    return false;
  }
  const std::string panel = value.value("panel", std::string());
  return panel == "one_model" || panel == "one_family" || panel == "distinct";
}

bool IsOrderCheckRecord(const json& value) {
  // Counts are whole numbers >= 0 however they were built (a parsed file's are unsigned, a
  // record built from int literals signed).
  auto count = [&](const char* key) {
    const json& n = value.value(key, json());
    return n.is_number_integer() && n.get<int64_t>() >= 0;
  };
  if (!value.is_object() || value.size() != 3 || !count("passes") || !count("order_sensitive") ||
      !value.value("conflicts", json()).is_array() || value["conflicts"].empty()) {
    return false;
  }
  const size_t passes = value["passes"].get<size_t>();
  size_t sensitive = 0;
  for (const json& c : value["conflicts"]) {
    if (!c.is_object() || c.size() != 2 || !c.value("stable", json()).is_boolean() ||
        !c.value("favoured_slots", json()).is_array() || c["favoured_slots"].size() != passes) {
      return false;
    }
    for (const json& slot : c["favoured_slots"]) {
      if (!slot.is_null() &&
          !(slot.is_number_integer() && slot.get<int64_t>() >= 1 && slot.get<int64_t>() <= 3)) {
        return false;
      }
    }
    bool same = true;
    for (const json& slot : c["favoured_slots"]) same = same && slot == c["favoured_slots"][0];
    if (same != c["stable"].get<bool>()) return false;
    if (!same) ++sensitive;
  }
  return passes >= 2 && sensitive == value["order_sensitive"].get<size_t>();
}

Result<Manifest> ManifestFromJson(const json& value) {
  FieldReader r(value, "manifest.json");
  Manifest m;
  ReadHeader(r, m);
  const json& models = r.Object("models");
  const json& usage = r.Object("usage");
  const json& attempts = r.Array("attempts");
  const json& artifacts = r.Object("artifacts");
  const json& error = r.Value("error");
  const json* warm = r.Has("warm_children") ? &r.Value("warm_children") : nullptr;
  const json* dropped = r.Has("dropped_reviewers") ? &r.Value("dropped_reviewers") : nullptr;
  const json* degraded = r.Has("degraded") ? &r.Value("degraded") : nullptr;
  const json* adaptive = r.Has("adaptive") ? &r.Value("adaptive") : nullptr;
  if (r.Has("walk_protection")) {
    m.walk_protection = r.String("walk_protection");
    if (!IsWalkProtection(*m.walk_protection)) r.Fail("\"walk_protection\" is not a protection");
  }
  if (r.Has("citations")) {
    m.citations = r.Value("citations");
    if (!IsCitationsRecord(m.citations)) r.Fail("\"citations\" is not a citation check record");
  }
  if (r.Has("agreement")) {
    m.agreement = r.Value("agreement");
    if (!IsAgreementRecord(m.agreement)) r.Fail("\"agreement\" is not an agreement record");
  }
  if (r.Has("order_check")) {
    m.order_check = r.Value("order_check");
    if (!IsOrderCheckRecord(m.order_check)) {
      r.Fail("\"order_check\" is not an order check record");
    }
  }
  if (r.Has("panel")) m.panel = r.String("panel");
  if (r.Has("resumed_from")) {
    m.resumed_from = r.String("resumed_from");
    if (!IsValidRunId(*m.resumed_from)) r.Fail("\"resumed_from\" is not a run id");
  }
  Status s = r.Finish();
  if (!s.ok()) return s;
  auto parsed_models = ModelsFromJson(models);
  if (!parsed_models.ok()) return parsed_models.status();
  m.models = parsed_models.value();
  auto parsed_usage = UsageFromJson(usage, "manifest.json usage");
  if (!parsed_usage.ok()) return parsed_usage.status();
  m.usage = parsed_usage.value();
  if (s = ReadAttempts(attempts, m); !s.ok()) return s;
  if (s = ReadArtifacts(artifacts, m); !s.ok()) return s;
  if (warm != nullptr) {
    if (s = ReadWarmChildren(*warm, m); !s.ok()) return s;
  }
  if (dropped != nullptr) {
    if (s = ReadDroppedReviewers(*dropped, m); !s.ok()) return s;
  }
  if (degraded != nullptr) {
    Result<DegradedRecord> d = DegradedFromJson(*degraded, "manifest.json degraded");
    if (!d.ok()) return d.status();
    m.degraded = std::move(d).value();
  }
  if (adaptive != nullptr) {
    Result<AdaptiveRecord> a = AdaptiveFromJson(*adaptive, "manifest.json adaptive");
    if (!a.ok()) return a.status();
    m.adaptive = std::move(a).value();
  }
  if (!error.is_null()) {
    auto e = RunErrorFromJson(error, "manifest.json error");
    if (!e.ok()) return e.status();
    m.error = e.value();
  }
  return m;
}

}  // namespace pi_fusion::store
