// The binding of fusion_web_fetch (child/core/web_fetch.h) to Pi: registered only in research
// candidates, the children whose private environment names the run's source policy:
//
//   PI_FUSION_SOURCE_POLICY          absolute path of the run's source-policy.private.json
//   PI_FUSION_SOURCE_POLICY_SHA256   "sha256:<hex>" of its bytes as the parent wrote them
//
// The policy is read and its hash checked at registration, so a candidate whose policy is missing
// or altered fails to load loudly instead of fetching by other rules. Each call runs on a thread
// of its own (a fetch may take 90 s; Node's small thread pool must stay free for Pi's file
// tools), starts `pi-fusion fetch` through the process layer, and settles the tool's promise on
// the JS thread; Pi's abort signal stops the fetcher. JS thread only, except where noted.
#pragma once

#include <napi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "child/core/child_config.h"
#include "child/core/web_fetch.h"
#include "core/file_system.h"

namespace pi_fusion::child {

// Called on the JS thread when a call has an outcome, before Pi sees the result (the audit
// journal attaches the fetch provenance to the call here).
using WebFetchOutcomeHook =
    std::function<void(const std::string& tool_call_id, const WebFetchOutcome& outcome)>;

// The tool for this child, or nullptr when the environment names no source policy (not a
// research candidate). Error code "config_invalid" when only one of the two variables is set, the
// file cannot be read through `fs`, its hash differs, or it does not parse (the reader's message
// included; ReadDeclaredSourcePolicy).
Result<std::shared_ptr<WebFetchTool>> LoadWebFetchTool(FileSystem& fs, const EnvLookup& lookup,
                                                       const std::string& cwd);

// Registers `tool` as fusion_web_fetch with Pi (pi.registerTool).
void RegisterWebFetchTool(Napi::Env env, Napi::Object pi, std::shared_ptr<WebFetchTool> tool,
                          WebFetchOutcomeHook on_outcome);

}  // namespace pi_fusion::child
