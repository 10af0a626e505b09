#include "net/fetch_json.h"

namespace pi_fusion::net {

url::FetchFailure FetchFailureOf(const Status& status, const FetchTrace& trace) {
  url::FetchFailure failure{status.code(), status.message(), {}, {}, {}};
  if (!trace.url.empty()) failure.url = trace.url;
  if (!trace.final_url.empty()) failure.final_url = trace.final_url;
  if (trace.http_status != 0) failure.http_status = trace.http_status;
  return failure;
}

url::FetchAnswer FetchAnswerOf(const Result<FetchResult>& result, const FetchTrace& trace) {
  if (!result.ok()) return FetchFailureOf(result.status(), trace);
  return *result;
}

}  // namespace pi_fusion::net
