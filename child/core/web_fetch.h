// fusion_web_fetch: the research candidates' private tool (docs/tools/fusion_research.md).
//
// One call: check the closed arguments {url, extract?}; refuse a URL that is not one of the run's
// declared canonical URLs (source_not_declared, no request) and any fetch past the attempt's 50th
// (fetch_limit_exceeded); otherwise run `pi-fusion fetch --json` for the declared canonical URL in
// a process of its own (through the injected runner: the process layer in production), read its
// one JSON line with the fetch contract's closed reader (url/fetch_contract.h), and shape
//   - what the model sees: on success the extracted text, at most 32 KiB with a visible marker
//     when cut, framed as untrusted page content between boundary lines the page cannot forge
//     (they carry its content hash); on failure `<code>: <message>` as a tool error;
//   - what the audit journal record adds (never page content, never a refused raw URL):
//       success          {url, final_url, http_status, response_bytes, content_sha256}
//       declared, failed {url, error_code[, final_url][, http_status]}
//       refused          {rejected_url_sha256}
//       bad arguments    {error_code}
// A WebFetchTool belongs to one candidate attempt. Thread-safe: Pi may run tool calls in
// parallel; the fetch count is reserved under a lock, the fetches themselves run concurrently.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "core/limits.h"
#include "pi_fusion/status.h"
#include "process/cancel_token.h"
#include "url/fetch_contract.h"
#include "url/source_policy_file.h"

namespace pi_fusion::child {

inline constexpr std::string_view kWebFetchToolName = "fusion_web_fetch";
// The extracted text the model may see is kMaxExtractedTextBytes (core/limits.h): the fetcher's
// own cap, enforced again here.
// How one fetcher process may run: its own 90 s deadline plus time to start and to exit.
inline constexpr std::chrono::milliseconds kFetchProcessWall{100'000};
// Bytes kept from the fetcher's stdout: one JSON line with at most 32 KiB of text, escaped.
inline constexpr size_t kFetchProcessStdoutCap = 1 << 20;

// How a fetcher process ended, as the runner reports it.
struct FetchProcessResult {
  std::optional<int> exit_code;
  std::optional<int> term_signal;
  std::string stdout_bytes;
  Status status;  // the supervisor's verdict when it stopped the process (timeout, cap, cancel)
};
// Runs argv (argv[0] is the pi-fusion executable) to completion, stopping it early when `cancel`
// fires. A non-ok Result: it never ran.
using FetchProcessRunner = std::function<Result<FetchProcessResult>(
    const std::vector<std::string>& argv, const process::CancelToken& cancel)>;

struct WebFetchOutcome {
  bool ok = false;
  std::string text;        // the tool result text (ok) or the tool error message (!ok)
  std::string error_code;  // empty when ok
  nlohmann::json audit = nlohmann::json::object();
};

class WebFetchTool {
 public:
  WebFetchTool(url::SourcePolicy policy, std::string pi_fusion_path, FetchProcessRunner runner);

  WebFetchOutcome Call(const nlohmann::json& arguments,
                       const process::CancelToken& cancel = process::CancelToken());

  // Fetcher processes started so far (refusals do not count).
  int fetches() const;

 private:
  WebFetchOutcome Fetch(const url::FetchRequest& request, const process::CancelToken& cancel);

  url::SourcePolicy policy_;
  std::string pi_fusion_path_;
  FetchProcessRunner runner_;
  mutable std::mutex mutex_;
  int fetches_ = 0;  // guarded by mutex_
};

// The run's source policy as the parent named it to this candidate: the file `path`
// (PI_FUSION_SOURCE_POLICY) read through `fs` (a final symlink followed, at most
// url::kSourcePolicyMaxBytes), its bytes checked against `sha256` ("sha256:<hex>",
// PI_FUSION_SOURCE_POLICY_SHA256), then parsed. Error code "config_invalid", its message starting
// "pi-fusion child: ", when the file cannot be read, its hash differs or it does not parse.
Result<url::SourcePolicy> ReadDeclaredSourcePolicy(FileSystem& fs, const std::string& path,
                                                   const std::string& sha256);

// The argv of one fetcher process: `request` on the command line,
//   <pi_fusion_path> fetch --json --extract <request.extract> -- <request.url>
std::vector<std::string> FetchProcessArgv(const std::string& pi_fusion_path,
                                          const url::FetchRequest& request);

}  // namespace pi_fusion::child
