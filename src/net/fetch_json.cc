#include "net/fetch_json.h"

namespace pi_fusion::net {

nlohmann::ordered_json FetchErrorToJson(const Status& status) {
  return {{"ok", false}, {"error", {{"code", status.code()}, {"message", status.message()}}}};
}

nlohmann::ordered_json FetchResultToJson(const Result<FetchResult>& result) {
  if (!result.ok()) return FetchErrorToJson(result.status());
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
