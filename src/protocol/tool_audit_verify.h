// Parent-side verification of one tool-enabled child's audit log (docs/protocol.md, "Tool-call
// audit log"). A pure function over the bytes of the journal and the seal, so it can be fuzzed.
//
// Every tool-enabled attempt must leave both files. The verifier recomputes everything the seal
// claims and never trusts a count it can count itself. Checks, in order (the first failure
// decides; `reason` names it):
//   journal_missing, seal_missing       a file is absent
//   seal_invalid                        the seal is not exactly one canonical closed seal object
//   seal_incomplete                     the seal says the child failed (status "failed")
//   record_invalid                      a line is not one canonical closed record, or the journal
//                                       ends in a partial line
//   ordinal_sequence                    ordinals are not 1, 2, …, n (a gap, repeat or reorder)
//   records_after_seal                  the seal binds only a prefix; records follow it
//   hash_mismatch                       the journal's SHA-256 or length is not the seal's
//   count_mismatch                      record_count / last_ordinal differ from the journal
//   result_bytes_mismatch               the seal's aggregate result bytes are not the sum
//   settlement_mismatch                 the settlement frame counts another number of tool
//                                       calls than the sealed journal holds
//   call_cap_exceeded                   more than max_tool_calls records
//   result_bytes_cap_exceeded           aggregate result bytes over kMaxToolResultBytes
//   tool_not_allowed                    a tool outside the allowlist executed (status "ok");
//                                       refused calls (status "error") are evidence, not a breach
//   source_not_declared                 a record's fetch-provenance `url` is not a declared source
// Every failure is tool_audit_invalid except result_bytes_cap_exceeded, which is
// child_runtime_limit_exceeded: the child refuses only calls that start after the aggregate passed
// the limit, so a complete log whose last call(s) crossed it is a limit crossing, not a damaged
// log, and is reported as the limit's own code (docs/protocol.md). Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pi_fusion/status.h"
#include "protocol/constants.h"
#include "protocol/tool_audit.h"

namespace pi_fusion::protocol {

struct ToolAuditInput {
  std::optional<std::string_view> journal;  // the .tool-calls.jsonl bytes; nullopt when absent
  std::optional<std::string_view> seal;     // the .seal.json bytes; nullopt when absent
  std::vector<std::string> allowed_tools;   // the workflow's candidate tools
  // The settlement frame's `tool_calls` (every call Pi started); nullopt skips that check.
  std::optional<int64_t> settled_tool_calls;
  // The run's declared canonical URLs (research: source-policy.private.json; every other workflow:
  // none). Every record's provenance `url` must be one of them. nullopt skips that check.
  std::optional<std::vector<std::string>> declared_urls;
  // The most records the log may hold (call_cap_exceeded past it): kMaxToolCalls, or
  // kEvaluatorMaxToolCalls for an evaluator with tools.
  int64_t max_tool_calls = kMaxToolCalls;
};

struct ToolAuditReport {
  Status status;       // ok or tool_audit_invalid
  std::string reason;  // empty when ok; otherwise one of the reasons above
  // status code: tool_audit_invalid, or child_runtime_limit_exceeded (result_bytes_cap_exceeded)
  std::vector<ToolCallRecord> records;  // the well-formed records, in journal order
  std::optional<ToolCallSeal> seal;     // when it parsed
  uint64_t result_bytes = 0;            // sum over `records`

  bool ok() const { return status.ok(); }
};

ToolAuditReport VerifyToolAudit(const ToolAuditInput& input);

// The seal file's bytes: canonical JSON + "\n".
std::string EncodeSeal(const ToolCallSeal& seal);

}  // namespace pi_fusion::protocol
