// The reason workflow's session projection: the canonical input
// `pi-background-tasks.fusion-input.v5` (context.kind "session_projection") and its omission
// ledger `pi-background-tasks.fusion-context-ledger.v2` (context-omission-ledger.json).
//
// Policy (docs/workflow.md, "Session projection", is the full statement; context_branch.h says
// which entries are selected):
//   - user and assistant text blocks are kept verbatim, in branch order, with their role; empty
//     text blocks are dropped;
//   - assistant thinking, tool calls, tool-result text and images, system messages, `!` bash
//     executions and hidden custom messages (display:false) are omitted: each becomes a ledger
//     row (kind, entry id, block, byte count, SHA-256), and each maximal run of consecutive
//     omitted rows becomes one receipt in the conversation, for example
//       [omitted: assistant_thinking=1, tool_call=2, tool_result_text=2; 5321 bytes; ledger 3-7;
//        sha256:<hex of the canonical JSON of those five rows>]
//   - user and displayed custom-message images become marker text
//       [image: image/png, 1234 bytes, sha256:<hex of the decoded image>]
//     and a ledger row; no image payload ever enters the input;
//   - displayed custom messages keep their text (role "custom"); compaction and branch summaries
//     keep their summary text (roles "compaction_summary", "branch_summary").
// Equal branches give equal bytes: nothing here reads a clock, a random source or the host.
//
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "schema/normalize.h"
#include "workflow/canonical_document.h"

namespace pi_fusion::workflow {

struct SessionProjectionRequest {
  std::string cwd;        // the session's working directory; must not be empty
  nlohmann::json branch;  // sessionManager.getBranch(), as JSON
  // The toolCallId of the fusion_reason call that launches the run; nullopt for /fusion.
  std::optional<std::string> active_tool_call_id;
  schema::NormalizedRequest request;  // its WorkflowSpec row: kSessionProjection
};

struct SessionProjection {
  CanonicalDocument input;   // canonical-input.json
  CanonicalDocument ledger;  // context-omission-ledger.json; input binds its hash
};

// Errors: context_policy_unsupported_block for an entry type, message role or content block the
// policy does not know; context_capture_failed for a malformed branch, an active tool call that
// is not on the branch, invalid image base64, a non-reason request or an empty cwd.
Result<SessionProjection> ProjectSession(const SessionProjectionRequest& request);

}  // namespace pi_fusion::workflow
