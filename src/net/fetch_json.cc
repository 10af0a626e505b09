#include "net/fetch_json.h"

namespace pi_fusion::net {

nlohmann::ordered_json FetchErrorToJson(const Status& status, const FetchTrace& trace) {
  nlohmann::ordered_json out = {
      {"ok", false}, {"error", {{"code", status.code()}, {"message", status.message()}}}};
  if (!trace.url.empty()) out["url"] = trace.url;
  if (!trace.final_url.empty()) out["final_url"] = trace.final_url;
  if (trace.http_status != 0) out["http_status"] = trace.http_status;
  return out;
}

nlohmann::ordered_json FetchResultToJson(const Result<FetchResult>& result,
                                         const FetchTrace& trace) {
  if (!result.ok()) return FetchErrorToJson(result.status(), trace);
  const FetchResult& r = *result;
  return {{"ok", true},
          {"url", r.url},
          {"final_url", r.final_url},
          {"http_status", r.http_status},
          {"content_type", r.content_type},
          {"response_bytes", r.response_bytes},
          {"content_sha256", r.content_sha256},
          {"extracted_bytes", r.extracted_bytes},
          {"truncated", r.truncated},
          {"text", r.text}};
}

std::string RenderJsonLine(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace pi_fusion::net
