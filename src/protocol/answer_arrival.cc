#include "protocol/answer_arrival.h"

#include <algorithm>

#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/stderr_scan.h"

namespace pi_fusion::protocol {

bool AnswerArrival::Complete(std::string_view stdout_bytes, std::string_view stderr_bytes) {
  if (never_) return false;
  if (!announced_ && !FindSettlement(stderr_bytes)) return false;
  // Stdout only grows, so a size already hashed holds the same bytes: each size is hashed once.
  if (stdout_bytes.size() != announced_->bytes || stdout_bytes.size() == mismatched_size_) {
    return false;
  }
  if (Sha256Ref(stdout_bytes) == announced_->sha256) return true;
  mismatched_size_ = stdout_bytes.size();
  return false;
}

// The settlement is the child's last frame: once its whole line is there, the metadata frames
// before it are too.
bool AnswerArrival::FindSettlement(std::string_view stderr_bytes) {
  const size_t name = kSettlementSchema.size();
  for (;;) {
    const size_t at = stderr_bytes.find(kSettlementSchema, searched_);
    if (at == std::string_view::npos) {
      // A later match can only start where the name no longer fits in what is here now.
      if (stderr_bytes.size() >= name)
        searched_ = std::max(searched_, stderr_bytes.size() - name + 1);
      return false;
    }
    const size_t line_end = stderr_bytes.find('\n', at);
    if (line_end == std::string_view::npos) return false;  // the line is not complete yet
    searched_ = line_end + 1;
    const StderrScan scan = ScanStderr(stderr_bytes.substr(0, line_end + 1));
    const nlohmann::json* settlement = nullptr;
    for (const ScannedFrame& frame : scan.frames) {
      if (frame.schema == kSettlementSchema) settlement = &frame.body;
    }
    // The name in a diagnostic line, or a malformed frame the verifier will refuse: look on.
    if (settlement == nullptr) continue;
    return ReadAnnounced(scan, *settlement);
  }
}

bool AnswerArrival::ReadAnnounced(const StderrScan& scan, const nlohmann::json& settlement) {
  never_ = true;  // unless an ok settlement names a well-formed final record below
  if (settlement.value("status", "") != "ok") return false;
  const auto final_ordinal = settlement.find("final_ordinal");
  if (final_ordinal == settlement.end() || !final_ordinal->is_number_integer()) return false;
  for (const ScannedFrame& frame : scan.frames) {
    if (frame.schema != kMetadataSchema) continue;
    const nlohmann::json& body = frame.body;
    if (body.value("ordinal", int64_t{-1}) != final_ordinal->get<int64_t>()) continue;
    const auto bytes = body.find("text_bytes");
    const auto sha = body.find("text_sha256");
    if (bytes == body.end() || !bytes->is_number_integer() || bytes->get<int64_t>() < 0 ||
        sha == body.end() || !sha->is_string()) {
      return false;
    }
    announced_ = Announced{static_cast<uint64_t>(bytes->get<int64_t>()), sha->get<std::string>()};
    never_ = false;
    return true;
  }
  return false;
}

}  // namespace pi_fusion::protocol
