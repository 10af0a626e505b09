// Parent-side verification of one finished child: its frames against its stdout and exit.
//
// VerifyChildRun is the only judge of a child's answer. It accepts an answer only when the whole
// frame stream is well formed and closed, the settlement binds exactly that stream, the final
// record is a `stop` from the requested provider/model, and stdout is byte-for-byte the text the
// final record hashes. The rules (docs/protocol.md, "Verification"):
//   - non-final `toolUse` records are normal;
//   - a non-final `error` is accepted only as a retry marker: no text, the empty hash, zero usage,
//     listed in the settlement, followed by a later final `stop`;
//   - exactly one non-final `stop` is accepted only as the oversized original named by the
//     settlement, hash-bound to the preserved original file and followed only by retry markers
//     and its replacement, which must fit kCandidateOutputMaxBytes;
//   - `length`, `aborted`, `pending`, `deferred`, a final `error`, error records with text or
//     usage, unknown/malformed/duplicate/out-of-order frames, a missing, duplicate, tampered or
//     early settlement, and `Extension error (...)` diagnostics all fail.
// A runtime-guard frame decides the error code even when the exit looks clean.
//
// Pure code (the caller reads the files); thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"
#include "protocol/frames.h"

namespace pi_fusion::protocol {

// How the child process ended: exactly one is set, or neither when it could not be reaped.
struct ChildExit {
  std::optional<int> exit_code;
  std::optional<int> term_signal;
};

struct VerifyRequest {
  std::string_view stdout_bytes;  // everything the child wrote to stdout
  std::string_view stderr_bytes;  // everything the child wrote to stderr
  ChildExit exit;
  std::string provider;  // the route the child was launched with
  std::string model;
  // The content of the file at PI_FUSION_OVERSIZE_PATH after the child ended, when it exists.
  // Required exactly when the settlement names an oversized original.
  std::optional<std::string> oversized_original;
};

struct OversizedOriginal {
  int64_t ordinal = 0;             // its metadata record
  uint64_t bytes = 0;              // printed bytes (the file's size)
  std::string sha256;              // the file's hash, equal to the record's text_sha256
  uint64_t answer_json_bytes = 0;  // > kCandidateOutputMaxBytes
};

// The verdict plus all evidence that could be read, also on failure (usage of a failed child
// still counts toward the run).
struct ChildReport {
  // ok, or one of child_event_invalid, child_exit_failed, child_runtime_limit_exceeded,
  // child_runtime_payload_invalid, child_cache_policy_invalid, cost_cap_exceeded,
  // child_output_cap.
  Status status;
  // When ok: the verified answer (stdout without the "\n" Pi appends) and its measure.
  std::string answer;
  uint64_t answer_json_bytes = 0;
  // Sum over every well-formed metadata record (SumUsage), on success and failure alike.
  nlohmann::json usage;
  std::vector<MetadataRecord> records;               // well-formed records, in stream order
  std::vector<CacheObservation> cache_observations;  // one per record that has one
  std::vector<int64_t> retry_marker_ordinals;        // from the settlement, when verified
  std::optional<OversizedOriginal> oversized;        // when verified
  std::optional<RuntimeGuardFrame> guard;
  std::optional<SettlementFrame> settlement;
  // "sha256:<hex>" of the metadata frame lines, recomputed from stderr.
  std::string metadata_sha256;
  std::vector<std::string> diagnostics;  // Pi's own stderr lines

  bool ok() const { return status.ok(); }
};

ChildReport VerifyChildRun(const VerifyRequest& request);

}  // namespace pi_fusion::protocol
