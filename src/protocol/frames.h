// The child protocol records and their exact JSON shapes (docs/protocol.md).
//
// ToJson() produces the closed object the child writes; Parse*() accepts exactly that shape and
// nothing else (no unknown or missing keys, exact types, bounded strings), failing with
// child_event_invalid. Parse(ToJson(x)) == x for every valid x.
//
// Plain values; thread-compatible. Pure code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "protocol/text_digest.h"

namespace pi_fusion::protocol {

// The model route a child ran: Pi's provider id, model id and api name.
struct Route {
  std::string provider;
  std::string model;
  std::string api;

  bool operator==(const Route&) const = default;
};

// What the governor did to one provider request's cache markers
// (pi-background-tasks.fusion-claude-cache-observation.v1). It describes the final payload, not
// what the provider accepted.
struct CacheObservation {
  int64_t provider_request_ordinal = 0;  // 1-based count of before_provider_request calls
  std::string api;
  // none | short | long: PI_CACHE_RETENTION, or "short" (Pi's default) when unset.
  std::string requested_retention;
  // env: PI_CACHE_RETENTION was set; default: it was not; payload: the payload carried no cache
  // markers (a call-level `none`, e.g. compaction) and was left as it was.
  std::string source;
  // none | short | long for anthropic-messages payloads; unmanaged for other apis.
  std::string effective_retention;
  int64_t breakpoints = 0;          // cache_control markers in the final payload (0..4)
  int64_t breakpoints_removed = 0;  // markers dropped to meet the four-breakpoint ceiling
  bool long_fallback = false;       // long was requested but the model's compat forbids it

  bool operator==(const CacheObservation&) const = default;
};

// One finalized assistant message (pi-background-tasks.fusion-child-result.v4).
struct MetadataRecord {
  int64_t ordinal = 0;  // 1-based, per assistant message_end
  Route route;          // provider, model (the requested id) and api of the message
  std::optional<std::string> response_model;  // the provider's reported model, when given
  // pending | stop | length | toolUse | error | aborted | deferred (Pi's StopReason).
  std::string stop_reason;
  TextDigest text;         // text blocks only: thinking and tool calls never enter a frame
  int64_t tool_calls = 0;  // number of toolCall blocks (their arguments are not recorded)
  nlohmann::json usage;    // Pi's Usage object, verbatim
  std::optional<CacheObservation> cache;     // the request that produced the message, if any
  std::optional<std::string> error_message;  // Pi's errorMessage, cut to kMaxFrameMessageBytes

  bool operator==(const MetadataRecord&) const = default;
};

// A refusal by the child governor (pi-background-tasks.fusion-runtime-guard.v2). Carries evidence
// about the payload, never the payload.
struct RuntimeGuardFrame {
  // child_runtime_limit_exceeded | child_runtime_payload_invalid | child_cache_policy_invalid |
  // cost_cap_exceeded (a provider request the child's cost allowance cannot pay for)
  std::string code;
  std::string hook;  // before_provider_request | tool_call
  Route route;
  int64_t provider_request_ordinal = 0;   // requests seen so far, this one included
  int64_t tool_call_ordinal = 0;          // tool calls seen so far, this one included
  std::optional<std::string> tool_name;   // for hook == tool_call
  std::optional<uint64_t> payload_bytes;  // canonical JSON bytes of the refused payload
  std::optional<std::string> payload_sha256;
  std::string message;  // at most kMaxFrameMessageBytes

  bool operator==(const RuntimeGuardFrame&) const = default;
};

// The child's last word (pi-background-tasks.fusion-child-settlement.v3), written once at the
// first non-aborted, idle agent_settled.
struct SettlementFrame {
  std::string status;  // ok | failed
  // null when ok; otherwise child_output_cap or one of the runtime-guard codes.
  std::optional<std::string> failure_code;
  int64_t metadata_count = 0;
  // "sha256:<hex>" of every metadata frame line (prefix, JSON, "\n") concatenated in order.
  std::string metadata_sha256;
  std::optional<int64_t> final_ordinal;            // the last record, when there is one
  std::optional<std::string> final_record_sha256;  // its frame line's hash
  std::vector<int64_t> retry_marker_ordinals;      // non-final `error` records, ascending
  std::optional<int64_t> oversized_original_ordinal;
  int64_t provider_requests = 0;
  int64_t tool_calls = 0;

  bool operator==(const SettlementFrame&) const = default;
};

// The arguments of one journaled tool call, for the person who reads what a candidate looked at
// (pi-background-tasks.fusion-tool-call-arguments.v1): written right after the journal record of
// the same `ordinal`. `arguments` is the object the model sent when its canonical JSON is at most
// kMaxShownArgumentsBytes, else null (too long, not an object, or research's fetch of a URL that
// was not declared: rejected raw URLs are never written). The journal keeps only their hash, which
// a reader checks before showing them.
struct ToolArgumentsFrame {
  int64_t ordinal = 0;  // the journal record's ordinal
  std::optional<nlohmann::json> arguments;

  bool operator==(const ToolArgumentsFrame&) const = default;
};

// A sign of life (pi-background-tasks.fusion-child-progress.v1): the child streamed from its model
// or started, updated or finished a tool call since its last frame. Written at most once per
// kProgressFrameIntervalMs, or at once when the count of running tool calls changed, never after
// the settlement; the parent's stall watchdog counts it like any other byte, and the live views
// read the count. It carries nothing of the stream.
struct ProgressFrame {
  std::string source;         // model_stream | tool
  int64_t tools_running = 0;  // tool calls started and not yet finished

  bool operator==(const ProgressFrame&) const = default;
};

nlohmann::json ToJson(const CacheObservation& observation);
nlohmann::json ToJson(const ProgressFrame& frame);
nlohmann::json ToJson(const ToolArgumentsFrame& frame);
nlohmann::json ToJson(const MetadataRecord& record);
nlohmann::json ToJson(const RuntimeGuardFrame& guard);
nlohmann::json ToJson(const SettlementFrame& settlement);

Result<CacheObservation> ParseCacheObservation(const nlohmann::json& value);
Result<MetadataRecord> ParseMetadataRecord(const nlohmann::json& value);
Result<RuntimeGuardFrame> ParseRuntimeGuard(const nlohmann::json& value);
Result<SettlementFrame> ParseSettlement(const nlohmann::json& value);
Result<ToolArgumentsFrame> ParseToolArguments(const nlohmann::json& value);
Result<ProgressFrame> ParseProgress(const nlohmann::json& value);

// The stderr line of a frame: kFramePrefix + CanonicalJson(frame) + "\n".
// REQUIRES: `frame` is an object holding a "schema_version".
std::string EncodeFrameLine(const nlohmann::json& frame);

}  // namespace pi_fusion::protocol
