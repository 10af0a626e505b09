// AnswerArrival: has a running child's answer fully arrived?
//
// True once the child's settlement frame says `ok` and its stdout holds exactly the printed text
// that the final metadata record announces (byte count and SHA-256). It is only the trigger that
// lets the parent move on before the child exits (docs/architecture-process.md, "Ending at the
// answer"); VerifyChildRun still judges the same bytes in full before the answer is used.
//
// Incremental: each call searches only the stderr bytes not searched before, and stdout is hashed
// only when its size is the announced one. Pure code; one instance per child, not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "protocol/stderr_scan.h"

namespace pi_fusion::protocol {

class AnswerArrival {
 public:
  // REQUIRES: each call's bytes extend the previous call's (a child's streams only grow).
  bool Complete(std::string_view stdout_bytes, std::string_view stderr_bytes);

 private:
  struct Announced {
    uint64_t bytes = 0;
    std::string sha256;  // "sha256:<hex>"
  };
  bool FindSettlement(std::string_view stderr_bytes);
  bool ReadAnnounced(const StderrScan& scan, const nlohmann::json& settlement);

  size_t searched_ = 0;  // stderr bytes searched for the settlement line so far
  bool never_ = false;   // the settlement is not `ok` or names no final record: wait for the exit
  std::optional<Announced> announced_;
  size_t mismatched_size_ = SIZE_MAX;  // a stdout size whose hash was not the announced one
};

}  // namespace pi_fusion::protocol
