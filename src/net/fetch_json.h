// A fetch's outcome as `pi-fusion fetch`'s answer (url/fetch_contract.h), which --json and every
// --stdio answer print with url::FetchAnswerLine:
//   success  the page
//   failure  {code, message} plus, when known (FetchTrace), url, final_url and http_status
// Pure functions; thread-safe.
#pragma once

#include "net/fetcher.h"
#include "pi_fusion/status.h"
#include "url/fetch_contract.h"

namespace pi_fusion::net {

url::FetchAnswer FetchAnswerOf(const Result<FetchResult>& result, const FetchTrace& trace = {});
url::FetchFailure FetchFailureOf(const Status& status, const FetchTrace& trace = {});

}  // namespace pi_fusion::net
