// The per-record rules of child verification (see verify.h): ordinals, route identity, cache
// evidence, the accepted non-final stop reasons, the settlement's retry and oversized accounts,
// and the byte-exact rebuild of stdout from the final record.
//
// Internal to the protocol layer. Pure code; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pi_fusion/status.h"
#include "protocol/frames.h"
#include "protocol/verify.h"

namespace pi_fusion::protocol {

struct RecordCheck {
  Status status;
  std::string answer;  // when ok
  uint64_t answer_json_bytes = 0;
  std::optional<OversizedOriginal> oversized;
};

// REQUIRES: `settlement` already binds `records` by count and hash.
RecordCheck CheckRecords(const std::vector<MetadataRecord>& records,
                         const SettlementFrame& settlement, const VerifyRequest& request);

// Rebuilds the printed text of `final_record` against `stdout_bytes`: total size and hash, and
// each text block's size and hash in order, each followed by "\n".
Status CheckStdout(const MetadataRecord& final_record, std::string_view stdout_bytes);

// Consistency of one observation with its record (child_cache_policy_invalid when broken).
Status CheckCacheObservation(const CacheObservation& observation, const MetadataRecord& record);

}  // namespace pi_fusion::protocol
