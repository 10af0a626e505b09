#include "protocol/frames.h"

#include "pi_fusion/canonical_json.h"
#include "protocol/constants.h"
#include "protocol/json_fields.h"
#include "protocol/usage.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;

const std::vector<std::string_view> kRetentions = {"none", "short", "long"};
const std::vector<std::string_view> kEffectiveRetentions = {"none", "short", "long", "unmanaged"};
const std::vector<std::string_view> kSources = {"env", "default", "payload"};
const std::vector<std::string_view> kStopReasons = {"pending", "stop",    "length",  "toolUse",
                                                    "error",   "aborted", "deferred"};
const std::vector<std::string_view> kGuardCodes = {kChildRuntimeLimitExceeded,
                                                   kChildRuntimePayloadInvalid,
                                                   kChildCachePolicyInvalid, kCostCapExceeded};
const std::vector<std::string_view> kFailureCodes = {
    kChildRuntimeLimitExceeded, kChildRuntimePayloadInvalid, kChildCachePolicyInvalid,
    kCostCapExceeded, kChildOutputCap};
const std::vector<std::string_view> kHooks = {"before_provider_request", "tool_call"};

template <typename T>
json Nullable(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

json RouteJson(const Route& route) {
  return {{"provider", route.provider}, {"model", route.model}, {"api", route.api}};
}

Route ReadRoute(FieldReader& outer, std::string_view key) {
  Route route;
  const json* value = outer.Member(key, JsonShape::kObject);
  if (value == nullptr) return route;
  FieldReader reader(*value, "route");
  route.provider = reader.String("provider");
  route.model = reader.String("model");
  route.api = reader.String("api");
  if (Status s = reader.Finish(); !s.ok()) outer.Fail(s.message());
  return route;
}

TextDigest ReadText(FieldReader& reader) {
  TextDigest text;
  if (const json* blocks = reader.Member("text_blocks", JsonShape::kArray)) {
    for (const json& block : *blocks) {
      FieldReader b(block, "text block");
      TextBlockDigest digest;
      digest.bytes = static_cast<uint64_t>(b.Int("bytes"));
      digest.sha256 = b.Sha256("sha256");
      if (Status s = b.Finish(); !s.ok()) reader.Fail(s.message());
      text.blocks.push_back(std::move(digest));
    }
  }
  text.printed_bytes = static_cast<uint64_t>(reader.Int("text_bytes"));
  text.printed_sha256 = reader.Sha256("text_sha256");
  text.answer_json_bytes = static_cast<uint64_t>(reader.Int("answer_json_bytes"));
  return text;
}

}  // namespace

json ToJson(const CacheObservation& o) {
  return {{"schema_version", kCacheObservationSchema},
          {"provider_request_ordinal", o.provider_request_ordinal},
          {"api", o.api},
          {"requested_retention", o.requested_retention},
          {"source", o.source},
          {"effective_retention", o.effective_retention},
          {"breakpoints", o.breakpoints},
          {"breakpoints_removed", o.breakpoints_removed},
          {"long_fallback", o.long_fallback}};
}

json ToJson(const MetadataRecord& r) {
  json blocks = json::array();
  for (const TextBlockDigest& b : r.text.blocks) {
    blocks.push_back({{"bytes", b.bytes}, {"sha256", b.sha256}});
  }
  return {{"schema_version", kMetadataSchema},
          {"ordinal", r.ordinal},
          {"provider", r.route.provider},
          {"model", r.route.model},
          {"api", r.route.api},
          {"response_model", Nullable(r.response_model)},
          {"stop_reason", r.stop_reason},
          {"text_blocks", std::move(blocks)},
          {"text_bytes", r.text.printed_bytes},
          {"text_sha256", r.text.printed_sha256},
          {"answer_json_bytes", r.text.answer_json_bytes},
          {"tool_calls", r.tool_calls},
          {"usage", r.usage},
          {"cache_observation", r.cache ? ToJson(*r.cache) : json(nullptr)},
          {"error_message", Nullable(r.error_message)}};
}

json ToJson(const RuntimeGuardFrame& g) {
  return {{"schema_version", kRuntimeGuardSchema},
          {"code", g.code},
          {"hook", g.hook},
          {"route", RouteJson(g.route)},
          {"provider_request_ordinal", g.provider_request_ordinal},
          {"tool_call_ordinal", g.tool_call_ordinal},
          {"tool_name", Nullable(g.tool_name)},
          {"payload_bytes", Nullable(g.payload_bytes)},
          {"payload_sha256", Nullable(g.payload_sha256)},
          {"message", g.message}};
}

json ToJson(const SettlementFrame& s) {
  return {{"schema_version", kSettlementSchema},
          {"status", s.status},
          {"failure_code", Nullable(s.failure_code)},
          {"metadata_count", s.metadata_count},
          {"metadata_sha256", s.metadata_sha256},
          {"final_ordinal", Nullable(s.final_ordinal)},
          {"final_record_sha256", Nullable(s.final_record_sha256)},
          {"retry_marker_ordinals", s.retry_marker_ordinals},
          {"oversized_original_ordinal", Nullable(s.oversized_original_ordinal)},
          {"provider_requests", s.provider_requests},
          {"tool_calls", s.tool_calls}};
}

Result<CacheObservation> ParseCacheObservation(const json& value) {
  FieldReader r(value, "cache observation");
  CacheObservation o;
  r.Enum("schema_version", {kCacheObservationSchema});
  o.provider_request_ordinal = r.Int("provider_request_ordinal", 1);
  o.api = r.String("api");
  o.requested_retention = r.Enum("requested_retention", kRetentions);
  o.source = r.Enum("source", kSources);
  o.effective_retention = r.Enum("effective_retention", kEffectiveRetentions);
  o.breakpoints = r.Int("breakpoints", 0, kMaxCacheBreakpoints);
  o.breakpoints_removed = r.Int("breakpoints_removed");
  o.long_fallback = r.Bool("long_fallback");
  if (Status s = r.Finish(); !s.ok()) return s;
  return o;
}

Result<MetadataRecord> ParseMetadataRecord(const json& value) {
  FieldReader r(value, "metadata frame");
  MetadataRecord m;
  r.Enum("schema_version", {kMetadataSchema});
  m.ordinal = r.Int("ordinal", 1);
  m.route.provider = r.String("provider");
  m.route.model = r.String("model");
  m.route.api = r.String("api");
  m.response_model = r.NullableString("response_model");
  m.stop_reason = r.Enum("stop_reason", kStopReasons);
  m.text = ReadText(r);
  m.tool_calls = r.Int("tool_calls");
  if (const json* usage = r.Member("usage", JsonShape::kObject)) {
    if (Status s = ValidateUsage(*usage); !s.ok()) r.Fail(s.message());
    m.usage = *usage;
  }
  if (const json* cache = r.NullableMember("cache_observation", JsonShape::kObject)) {
    Result<CacheObservation> observation = ParseCacheObservation(*cache);
    if (!observation.ok()) {
      r.Fail(observation.status().message());
    } else {
      m.cache = *observation;
    }
  }
  m.error_message = r.NullableString("error_message", kMaxFrameMessageBytes);
  if (Status s = r.Finish(); !s.ok()) return s;
  return m;
}

Result<RuntimeGuardFrame> ParseRuntimeGuard(const json& value) {
  FieldReader r(value, "runtime-guard frame");
  RuntimeGuardFrame g;
  r.Enum("schema_version", {kRuntimeGuardSchema});
  g.code = r.Enum("code", kGuardCodes);
  g.hook = r.Enum("hook", kHooks);
  g.route = ReadRoute(r, "route");
  g.provider_request_ordinal = r.Int("provider_request_ordinal");
  g.tool_call_ordinal = r.Int("tool_call_ordinal");
  g.tool_name = r.NullableString("tool_name");
  std::optional<int64_t> bytes = r.NullableInt("payload_bytes");
  if (bytes) g.payload_bytes = static_cast<uint64_t>(*bytes);
  g.payload_sha256 = r.NullableSha256("payload_sha256");
  g.message = r.String("message", kMaxFrameMessageBytes);
  if (Status s = r.Finish(); !s.ok()) return s;
  if (g.payload_bytes.has_value() != g.payload_sha256.has_value()) {
    return Status::Error(std::string(kChildEventInvalid),
                         "runtime-guard frame has payload bytes without a hash or the reverse");
  }
  return g;
}

Result<SettlementFrame> ParseSettlement(const json& value) {
  FieldReader r(value, "settlement frame");
  SettlementFrame s;
  r.Enum("schema_version", {kSettlementSchema});
  s.status = r.Enum("status", {"ok", "failed"});
  s.failure_code = r.NullableEnum("failure_code", kFailureCodes);
  s.metadata_count = r.Int("metadata_count");
  s.metadata_sha256 = r.Sha256("metadata_sha256");
  s.final_ordinal = r.NullableInt("final_ordinal", 1);
  s.final_record_sha256 = r.NullableSha256("final_record_sha256");
  if (const json* ordinals = r.Member("retry_marker_ordinals", JsonShape::kArray)) {
    for (const json& ordinal : *ordinals) {
      if (!ordinal.is_number_integer() || ordinal.get<int64_t>() < 1) {
        r.Fail("has a malformed retry marker ordinal");
        break;
      }
      s.retry_marker_ordinals.push_back(ordinal.get<int64_t>());
    }
  }
  s.oversized_original_ordinal = r.NullableInt("oversized_original_ordinal", 1);
  s.provider_requests = r.Int("provider_requests");
  s.tool_calls = r.Int("tool_calls");
  if (Status st = r.Finish(); !st.ok()) return st;
  if ((s.status == "ok") == s.failure_code.has_value()) {
    return Status::Error(std::string(kChildEventInvalid),
                         "settlement frame status and failure_code disagree");
  }
  if (s.final_ordinal.has_value() != s.final_record_sha256.has_value()) {
    return Status::Error(std::string(kChildEventInvalid),
                         "settlement frame has a final ordinal without its hash or the reverse");
  }
  return s;
}

json ToJson(const ToolArgumentsFrame& f) {
  return {{"schema_version", kToolArgumentsSchema},
          {"ordinal", f.ordinal},
          {"arguments", f.arguments ? *f.arguments : json(nullptr)}};
}

Result<ToolArgumentsFrame> ParseToolArguments(const json& value) {
  FieldReader r(value, "tool-call arguments frame");
  ToolArgumentsFrame f;
  r.Enum("schema_version", {kToolArgumentsSchema});
  f.ordinal = r.Int("ordinal", 1);
  if (const json* arguments = r.NullableMember("arguments", JsonShape::kObject)) {
    if (CanonicalJson(*arguments).size() > kMaxShownArgumentsBytes) {
      r.Fail("has arguments over " + std::to_string(kMaxShownArgumentsBytes) + " bytes");
    }
    f.arguments = *arguments;
  }
  if (Status s = r.Finish(); !s.ok()) return s;
  return f;
}

json ToJson(const ProgressFrame& f) {
  return {{"schema_version", kProgressSchema},
          {"source", f.source},
          {"tools_running", f.tools_running}};
}

Result<ProgressFrame> ParseProgress(const json& value) {
  FieldReader r(value, "progress frame");
  ProgressFrame f;
  r.Enum("schema_version", {kProgressSchema});
  f.source = r.Enum("source", {"model_stream", "tool"});
  f.tools_running = r.Int("tools_running");
  if (Status s = r.Finish(); !s.ok()) return s;
  return f;
}

std::string EncodeFrameLine(const json& frame) {
  std::string line(kFramePrefix);
  line += CanonicalJson(frame);
  line += '\n';
  return line;
}

}  // namespace pi_fusion::protocol
