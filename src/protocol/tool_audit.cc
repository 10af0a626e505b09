#include "protocol/tool_audit.h"

#include "core/timestamp.h"
#include "pi_fusion/canonical_json.h"
#include "protocol/constants.h"
#include "protocol/json_fields.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;

constexpr size_t kMaxUrlBytes = 8192;
constexpr size_t kMaxErrorCodeBytes = 64;
constexpr size_t kTimestampBytes = 24;  // "2025-03-04T05:06:07.089Z"
const std::vector<std::string_view> kStatuses = {"ok", "error"};
const std::vector<std::string_view> kSealStatuses = {"complete", "failed"};
const std::vector<std::string_view> kSealFailureCodes = {
    kChildRuntimeLimitExceeded, kChildRuntimePayloadInvalid, kChildCachePolicyInvalid,
    kChildOutputCap, kChildEventInvalid};

template <typename T>
json Nullable(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// Provenance keys appear only when set, so a file-tool record stays exactly the base shape.
void AddProvenance(const ToolCallProvenance& p, json* out) {
  if (p.url) (*out)["url"] = *p.url;
  if (p.final_url) (*out)["final_url"] = *p.final_url;
  if (p.http_status) (*out)["http_status"] = *p.http_status;
  if (p.response_bytes) (*out)["response_bytes"] = *p.response_bytes;
  if (p.content_sha256) (*out)["content_sha256"] = *p.content_sha256;
  if (p.rejected_url_sha256) (*out)["rejected_url_sha256"] = *p.rejected_url_sha256;
  if (p.error_code) (*out)["error_code"] = *p.error_code;
  if (p.walk_protection) (*out)["walk_protection"] = *p.walk_protection;
}

ToolCallProvenance ReadProvenance(const json& value, FieldReader& r) {
  ToolCallProvenance p;
  auto has = [&](const char* key) { return value.is_object() && value.contains(key); };
  if (has("url")) p.url = r.String("url", kMaxUrlBytes);
  if (has("final_url")) p.final_url = r.String("final_url", kMaxUrlBytes);
  if (has("http_status")) p.http_status = r.Int("http_status", 100, 599);
  if (has("response_bytes")) p.response_bytes = static_cast<uint64_t>(r.Int("response_bytes"));
  if (has("content_sha256")) p.content_sha256 = r.Sha256("content_sha256");
  if (has("rejected_url_sha256")) p.rejected_url_sha256 = r.Sha256("rejected_url_sha256");
  if (has("error_code")) p.error_code = r.String("error_code", kMaxErrorCodeBytes);
  if (has("walk_protection")) {
    p.walk_protection = r.String("walk_protection", kMaxErrorCodeBytes);
  }
  return p;
}

}  // namespace

json ToJson(const ToolCallRecord& r) {
  json out = {{"schema_version", kToolCallSchema},
              {"ordinal", r.ordinal},
              {"tool_name", r.tool_name},
              {"arguments_sha256", r.arguments_sha256},
              {"arguments_bytes", r.arguments_bytes},
              {"result_sha256", r.result_sha256},
              {"result_bytes", r.result_bytes},
              {"status", r.status},
              {"duration_ms", r.duration_ms}};
  if (r.started_at) out["started_at"] = *r.started_at;
  AddProvenance(r.provenance, &out);
  return out;
}

json ToJson(const ToolCallSeal& s) {
  return {{"schema_version", kToolCallSealSchema},    {"status", s.status},
          {"failure_code", Nullable(s.failure_code)}, {"record_count", s.record_count},
          {"last_ordinal", Nullable(s.last_ordinal)}, {"journal_bytes", s.journal_bytes},
          {"journal_sha256", s.journal_sha256},       {"result_bytes", s.result_bytes}};
}

Result<ToolCallRecord> ParseToolCallRecord(const json& value) {
  FieldReader r(value, "tool-call record");
  ToolCallRecord record;
  r.Enum("schema_version", {kToolCallSchema});
  record.ordinal = r.Int("ordinal", 1);
  record.tool_name = r.String("tool_name", kMaxToolNameBytes);
  record.arguments_sha256 = r.Sha256("arguments_sha256");
  record.arguments_bytes = static_cast<uint64_t>(r.Int("arguments_bytes"));
  record.result_sha256 = r.Sha256("result_sha256");
  record.result_bytes = static_cast<uint64_t>(r.Int("result_bytes"));
  record.status = r.Enum("status", kStatuses);
  record.duration_ms = r.Int("duration_ms");
  if (value.is_object() && value.contains("started_at")) {
    record.started_at = r.String("started_at", kTimestampBytes);
    if (!IsUtcMillis(*record.started_at)) r.Fail("\"started_at\" is not an RFC 3339 UTC time");
  }
  record.provenance = ReadProvenance(value, r);
  if (Status s = r.Finish(); !s.ok()) return s;
  return record;
}

Result<ToolCallSeal> ParseToolCallSeal(const json& value) {
  FieldReader r(value, "tool-call seal");
  ToolCallSeal seal;
  r.Enum("schema_version", {kToolCallSealSchema});
  seal.status = r.Enum("status", kSealStatuses);
  seal.failure_code = r.NullableEnum("failure_code", kSealFailureCodes);
  seal.record_count = r.Int("record_count");
  seal.last_ordinal = r.NullableInt("last_ordinal", 1);
  seal.journal_bytes = static_cast<uint64_t>(r.Int("journal_bytes"));
  seal.journal_sha256 = r.Sha256("journal_sha256");
  seal.result_bytes = static_cast<uint64_t>(r.Int("result_bytes"));
  if (Status s = r.Finish(); !s.ok()) return s;
  if ((seal.status == "complete") == seal.failure_code.has_value()) {
    return Status::Error(std::string(kChildEventInvalid),
                         "tool-call seal status and failure_code disagree");
  }
  return seal;
}

std::string EncodeJournalLine(const ToolCallRecord& record) {
  return CanonicalJson(ToJson(record)) + "\n";
}

}  // namespace pi_fusion::protocol
