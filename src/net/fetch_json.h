// The JSON shape of one fetch result, shared by `pi-fusion fetch --json` and `--stdio`:
//   success {ok:true, url, final_url, http_status, content_type, response_bytes,
//            content_sha256:"sha256:<hex>", extracted_bytes, truncated, text}
//   failure {ok:false, error:{code, message}} plus, when known (FetchTrace), url, final_url and
//           http_status
// Pure functions; thread-safe.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "net/fetcher.h"
#include "pi_fusion/status.h"

namespace pi_fusion::net {

nlohmann::ordered_json FetchResultToJson(const Result<FetchResult>& result,
                                         const FetchTrace& trace = {});
nlohmann::ordered_json FetchErrorToJson(const Status& status, const FetchTrace& trace = {});

// One line of JSON (no trailing newline); invalid UTF-8 in any string is replaced by U+FFFD, so
// rendering never throws.
std::string RenderJsonLine(const nlohmann::ordered_json& value);

}  // namespace pi_fusion::net
