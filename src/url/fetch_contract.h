// What crosses between `pi-fusion fetch` (src/cli, src/net) and its callers, chiefly a research
// candidate's fusion_web_fetch (child/): the request and the one-line JSON answer, as one struct
// each with one writer and one closed reader, so both ends agree by construction. The closed
// schemas are schemas/cli/fetch-request.json and schemas/cli/fetch-answer.json (the unit tests
// check what the writers produce against them); docs/cli/fetch.md describes both.
//
//   request  {url, extract?: "text" | "markdown"}: a --stdio line; a child passes the same two
//            fields on the command line (`fetch --json --extract <extract> -- <url>`).
//   answer   success {ok:true, url, final_url, http_status, content_type, response_bytes,
//                     content_sha256:"sha256:<hex>", extracted_bytes, truncated, text}
//            failure {ok:false, error:{code, message}} plus, when known, url, final_url and
//                     http_status
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "pi_fusion/status.h"

namespace pi_fusion::url {

struct FetchRequest {
  std::string url;
  std::string extract = "markdown";  // "text" or "markdown"
};

// A --stdio request line. Error code invalid_request, worded for the line's author: "request is
// not a JSON object", "unknown request field \"<key>\"", "request needs a string \"url\"",
// "\"extract\" must be \"text\" or \"markdown\"" (in that order of checks). Of a key given twice
// the last counts.
Result<FetchRequest> ParseFetchRequest(std::string_view line);

// A fetched page: what a successful answer carries.
struct FetchedPage {
  std::string url;        // canonical requested URL
  std::string final_url;  // canonical URL of the response that was extracted
  int http_status = 0;
  std::string content_type;    // lowercase media type, no parameters
  size_t response_bytes = 0;   // decoded body bytes
  std::string content_sha256;  // "sha256:<hex>" of the decoded body
  size_t extracted_bytes = 0;
  bool truncated = false;
  std::string text;
};

// A failed fetch, with what it learned before it failed.
struct FetchFailure {
  std::string code;
  std::string message;
  std::optional<std::string> url;        // the canonical requested URL, when it canonicalized
  std::optional<std::string> final_url;  // the URL of the last response received
  std::optional<int> http_status;        // that response's status
};

using FetchAnswer = std::variant<FetchedPage, FetchFailure>;

// The answer as one line of JSON, keys in the order above, no trailing newline. Invalid UTF-8 in
// any string is replaced by U+FFFD, so writing never throws.
std::string FetchAnswerLine(const FetchAnswer& answer);

// Reads what `pi-fusion fetch --json` printed (its stdout, trailing newline included).
//   nullopt: no answer at all (not JSON, not an object, or no boolean "ok"): the process ended
//            before it answered, and the caller says why.
//   error fetch_process_failed: an answer that breaks the closed shape. The messages:
//            "the fetcher's answer repeats the key \"<key>\" in one object",
//            "the fetcher's answer has an unknown key \"<key>\"",
//            "answer lacks <key>" (a success without a field, or with one of another type),
//            "the fetcher's error answer is malformed" (any other fault of a failure).
Result<std::optional<FetchAnswer>> ParseFetchAnswer(std::string_view stdout_bytes);

}  // namespace pi_fusion::url
