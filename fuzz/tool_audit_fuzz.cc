// The sealed tool-call audit log on hostile or damaged files: a tool-enabled child's journal
// and seal. The input is the journal, NUL, the seal (no NUL: the seal is missing). Invariants: an
// accepted log is exactly its records re-encoded, line by line, and the seal it carries is the
// seal those records imply, byte for byte.
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "protocol/tool_audit.h"
#include "protocol/tool_audit_verify.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace pi_fusion::protocol;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  ToolAuditInput audit;
  audit.allowed_tools = {"read", "grep", "find", "ls"};
  const size_t nul = input.find('\0');
  audit.journal = input.substr(0, nul);
  if (nul != std::string_view::npos) audit.seal = input.substr(nul + 1);

  const ToolAuditReport report = VerifyToolAudit(audit);
  FUZZ_CHECK(report.ok() == report.reason.empty());
  for (const ToolCallRecord& record : report.records) {
    const auto again = ParseToolCallRecord(ToJson(record));
    FUZZ_CHECK(again.ok() && *again == record);
  }
  if (!report.ok()) return 0;
  FUZZ_CHECK(report.seal.has_value() && report.seal->status == "complete");
  std::string journal;
  uint64_t result_bytes = 0;
  for (const ToolCallRecord& record : report.records) {
    journal += EncodeJournalLine(record);
    result_bytes += record.result_bytes;
  }
  FUZZ_CHECK(journal == *audit.journal);
  FUZZ_CHECK(report.result_bytes == result_bytes && report.seal->result_bytes == result_bytes);
  FUZZ_CHECK(report.seal->record_count == static_cast<int64_t>(report.records.size()));
  FUZZ_CHECK(EncodeSeal(*report.seal) == *audit.seal);
  return 0;
}
