// ChildGovernor: everything the companion child library decides, as plain C++.
//
// The binding (child/*.cc) turns Pi's extension events into the calls below and carries out the
// returned decisions (ctx.abort(), blocking a tool, removing tools and queueing the compression
// follow-up, failing the process exit). The governor writes every frame itself through ChildEnv:
//   - one metadata frame per finalized assistant message;
//   - at most one runtime-guard frame, for the first refusal (among them a request the child's cost
//     allowance cannot pay for, cost_cap_exceeded: cost_admission.h) (a refusal latches: every
//     later request and tool call is refused silently, and the process must exit failing);
//   - for a tool-enabled child, one durable journal record per tool execution and one seal;
//   - exactly one settlement frame, at the first non-aborted agent_settled that finds Pi idle,
//     after which nothing is written and any activity fails the process.
// See docs/protocol.md for the frame shapes and the rules.
//
// Thread-safety: none; Pi calls extension handlers on Node's JS thread only, one at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "child/core/child_config.h"
#include "child/core/child_env.h"
#include "child/core/cost_admission.h"
#include "child/core/tool_journal.h"
#include "core/error_codes.h"
#include "pi_fusion/status.h"
#include "protocol/frames.h"

namespace pi_fusion::child {

class ChildGovernor {
 public:
  // `env` is not owned and must outlive the governor.
  ChildGovernor(ChildConfig config, ChildEnv* env);

  struct ProviderRequest {
    protocol::Route route;  // ctx.model: provider, id, api
    // The payload as one JSON object, or why it could not be read as one (the binding serializes
    // it; cycles, BigInt, lone surrogates and non-objects fail there).
    Result<nlohmann::json> payload = Status::Error(kChildRuntimePayloadInvalid, "no payload");
    bool long_retention_allowed = true;  // ctx.model.compat.supportsLongCacheRetention !== false
    RequestModel model;                  // ctx.model's prices, maxTokens and compat
  };
  struct ProviderDecision {
    bool abort = false;         // refuse before transport: ctx.abort(), return nothing
    bool fail_process = false;  // make the child exit failing
    nlohmann::json payload;     // when !abort: the payload to send (replaces Pi's)
  };
  // before_provider_request. Counts the request, validates and normalizes the payload (cache
  // policy for anthropic-messages), enforces the provider-request limit, then, with a cost
  // allowance, admits the request against what is left of it (AdmitRequest: its output limit
  // may be lowered in the payload returned).
  ProviderDecision OnProviderRequest(ProviderRequest request);

  struct AssistantMessage {
    protocol::Route route;
    std::optional<std::string> response_model;
    std::string stop_reason;
    std::vector<std::string> text_blocks;  // the text of each `text` block, in order
    int64_t tool_calls = 0;                // number of toolCall blocks
    nlohmann::json usage;                  // Pi's Usage, verbatim
    std::optional<std::string> error_message;
  };
  struct MessageDecision {
    bool fail_process = false;
    // When set: remove every active tool, then queue this text as a follow-up user message in the
    // same session (the one compression turn of an oversized candidate answer).
    std::optional<std::string> follow_up;
  };
  // message_end with role assistant.
  MessageDecision OnAssistantMessage(const AssistantMessage& message);

  struct ToolDecision {
    bool block = false;
    std::string reason;  // shown to the model as the tool's error result
    bool abort = false;
    bool fail_process = false;
  };
  struct ToolStart {
    protocol::Route route;  // ctx.model
    std::string call_id;
    std::string tool_name;
    nlohmann::json arguments;  // as the model sent them
  };
  // tool_execution_start: fires for every call Pi starts, also invalid and unknown-tool calls.
  // Counts it and remembers it for the journal; past the tool-call limit, or once aggregate
  // result bytes have passed their limit, writes the guard frame and aborts the run, so the call
  // never executes. After the settlement it only fails the process.
  ToolDecision OnToolExecutionStart(const ToolStart& start);

  struct ToolCall {
    std::string call_id;
    std::string tool_name;
    nlohmann::json input;  // the validated arguments
    std::string cwd;       // ctx.cwd: the caller's project directory
  };
  // tool_call (after validation, before execution): blocks tools outside the allowlist, file
  // tools whose path leaves the project directory, any call during the compression turn, and
  // everything after a refusal or the settlement.
  ToolDecision OnToolCall(const ToolCall& call);

  // tool_execution_end: appends the call's record to the journal. Returns true when the process
  // must fail (the record could not be written, or activity after the settlement).
  bool OnToolExecutionEnd(const std::string& call_id, const std::string& tool_name,
                          const nlohmann::json& result_content, bool is_error);

  // Creates the empty journal of a tool-enabled child (no-op without tools). Called once at
  // registration; a failure must stop the child from loading.
  Status OpenJournal();
  // The journal of a tool-enabled child, for per-call provenance; null without tools.
  ToolJournal* journal() { return journal_.get(); }
  const ChildConfig& config() const { return config_; }

  // agent_settled. At the first call with !aborted, idle and nothing pending: seals the journal
  // (complete, or failed with the latched code), then writes the settlement. A failing child that
  // settles aborted gets its failed seal at the first agent_settled. Returns true when the
  // process must fail.
  bool OnSettled(bool aborted, bool idle, bool has_pending_messages);

  // Whether the last assistant message stopped as "aborted": what agent_settled.aborted says
  // on Pi 1.1.0 and newer, for the older Pis whose agent_settled carries no such field.
  bool last_answer_aborted() const {
    return !stop_reasons_.empty() && stop_reasons_.back() == "aborted";
  }

  bool settled() const { return settled_; }
  int64_t provider_requests() const { return requests_; }
  int64_t tool_calls() const { return tool_calls_; }
  // Tool calls started and not yet finished (0 for a child without tools).
  int64_t tools_running() const { return journal_ ? journal_->running() : 0; }
  // What this child has spent, as the admission counts it (below).
  double spent_usd() const { return spent_usd_; }

 private:
  struct PayloadEvidence {
    std::optional<uint64_t> bytes;
    std::optional<std::string> sha256;
  };

  ProviderDecision RefuseRequest(std::string_view code, const protocol::Route& route,
                                 PayloadEvidence evidence, std::string message);
  void EmitGuard(protocol::RuntimeGuardFrame guard);
  void Latch(std::string_view code);
  void Emit(const std::string& line);
  // Once: a plain (non-frame) stderr line saying why the child fails after its settlement, so
  // the parent's exit failure quotes a reason rather than just "Request aborted".
  void ReportLateActivity(const std::string& what);
  bool Failing() const { return failure_code_.has_value() || io_failed_; }
  // The tool limit the call about to start would cross, as a guard message; nullopt when none.
  std::optional<std::string> ToolLimitCrossed() const;
  void SealJournal();
  // The cost admission of a request that passed every other check; nullopt when it may be sent.
  std::optional<ProviderDecision> AdmitCost(const ProviderRequest& request, nlohmann::json* payload,
                                            bool long_cache_writes);
  // Moves the last admitted request from pending to spent: at its reported cost, or at its worst
  // case when it failed or was aborted (a provider may bill a stream it cut off).
  void CountSpend(const std::string& stop_reason, const nlohmann::json& usage);
  void HandleOversized(const protocol::MetadataRecord& record,
                       const std::vector<std::string>& text_blocks, MessageDecision* decision);
  protocol::SettlementFrame BuildSettlement() const;

  const ChildConfig config_;
  ChildEnv* const env_;

  int64_t requests_ = 0;
  int64_t tool_calls_ = 0;
  std::optional<protocol::CacheObservation> pending_observation_;  // last request's, unconsumed
  std::vector<std::string> stop_reasons_;                          // per metadata record, in order
  std::string metadata_stream_;  // every metadata frame line written, concatenated
  std::string last_metadata_line_;
  bool compression_started_ = false;
  std::optional<int64_t> oversized_ordinal_;
  bool guard_emitted_ = false;
  std::optional<std::string> failure_code_;
  bool io_failed_ = false;  // a frame could not be written: the parent cannot verify us
  bool settled_ = false;
  bool late_activity_reported_ = false;
  std::unique_ptr<ToolJournal> journal_;  // tool-enabled children only
  // The cost allowance's account: the reported cost of every answered request, plus the worst
  // case of each admitted request that left no message (counted at the next request).
  double spent_usd_ = 0;
  std::optional<double> pending_worst_usd_;
};

// The follow-up that asks the same session to shrink its previous answer.
std::string CompressionPrompt(uint64_t answer_json_bytes);

}  // namespace pi_fusion::child
