// The sealed tool-call audit log of a tool-enabled child (docs/protocol.md, "Tool-call audit
// log"): one journal line per tool execution Pi starts, and one seal written at the terminal
// agent_settled.
//
//   candidate-<slot>.attempt-<n>.tool-calls.jsonl   pi-background-tasks.fusion-tool-call.v1 lines
//   candidate-<slot>.attempt-<n>.seal.json          pi-background-tasks.fusion-tool-call-seal.v1
//
// A journal line is CanonicalJson(ToJson(record)) + "\n". Only sizes and SHA-256 digests of the
// arguments and of the result the model received are recorded: raw arguments, results and file
// content never enter the log.
//
// ToJson() produces the closed object; Parse*() accepts exactly that shape (unknown, missing or
// mistyped keys fail). Parse(ToJson(x)) == x for every valid x. Plain values; pure code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::protocol {

// Where a fetched page came from. Every field is optional; a record carries only the ones its tool
// sets (research's fusion_web_fetch). The raw URL of a rejected request is never stored, only its
// hash.
struct ToolCallProvenance {
  std::optional<std::string> url;                  // the requested canonical URL
  std::optional<std::string> final_url;            // after redirects
  std::optional<int64_t> http_status;              // the final response's status
  std::optional<uint64_t> response_bytes;          // body bytes received
  std::optional<std::string> content_sha256;       // "sha256:<hex>" of the body
  std::optional<std::string> rejected_url_sha256;  // "sha256:<hex>" of a refused URL
  std::optional<std::string> error_code;           // a declared URL's failed fetch: its code
  // grep and find: which kernel protections held for the walk (walk_jail.h's names)
  std::optional<std::string> walk_protection;

  bool operator==(const ToolCallProvenance&) const = default;
};

// One finished tool execution (pi-background-tasks.fusion-tool-call.v1).
struct ToolCallRecord {
  int64_t ordinal = 0;           // 1, 2, 3, … in journal order (the order calls finished)
  std::string tool_name;         // as the model named it, cut to kMaxToolNameBytes
  std::string arguments_sha256;  // of the canonical JSON of the arguments the model sent
  uint64_t arguments_bytes = 0;
  std::string result_sha256;  // of the canonical JSON of the result content the model received
  uint64_t result_bytes = 0;
  std::string status;  // ok | error (refused, invalid, unknown tool, or the tool failed)
  int64_t duration_ms = 0;
  // When the call started (tool_execution_start), RFC 3339 UTC with milliseconds
  // (core/timestamp.h), so the report can place it on the run's timeline. Optional: journals
  // written before the field have none.
  std::optional<std::string> started_at;
  ToolCallProvenance provenance;

  bool operator==(const ToolCallRecord&) const = default;
};

// The seal (pi-background-tasks.fusion-tool-call-seal.v1): binds the journal's exact bytes.
struct ToolCallSeal {
  // complete: written at the terminal agent_settled of a child that did not fail;
  // failed: the child latched a failure (failure_code says which) and the log is not complete.
  std::string status;
  std::optional<std::string> failure_code;
  int64_t record_count = 0;
  std::optional<int64_t> last_ordinal;  // null when there is no record
  uint64_t journal_bytes = 0;           // byte length of the journal the seal covers
  std::string journal_sha256;           // "sha256:<hex>" of exactly those bytes
  uint64_t result_bytes = 0;            // sum of the records' result_bytes

  bool operator==(const ToolCallSeal&) const = default;
};

nlohmann::json ToJson(const ToolCallRecord& record);
nlohmann::json ToJson(const ToolCallSeal& seal);

// Error code child_event_invalid (the verifier reports it as tool_audit_invalid).
Result<ToolCallRecord> ParseToolCallRecord(const nlohmann::json& value);
Result<ToolCallSeal> ParseToolCallSeal(const nlohmann::json& value);

// The journal line of `record`: canonical JSON + "\n".
std::string EncodeJournalLine(const ToolCallRecord& record);

}  // namespace pi_fusion::protocol
