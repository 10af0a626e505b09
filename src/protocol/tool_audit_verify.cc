#include "protocol/tool_audit_verify.h"

#include <algorithm>

#include "core/utf8.h"
#include "pi_fusion/canonical_json.h"
#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/frames.h"

namespace pi_fusion::protocol {
namespace {

using nlohmann::json;

// The failure of one check: its reason and what exactly was wrong.
struct Finding {
  std::string reason;
  std::string detail;
  bool limit = false;  // an execution limit crossed, not a damaged log
};

// Parses `text` as one JSON value whose canonical form is exactly `text`.
std::optional<json> ParseCanonical(std::string_view text) {
  json value = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || CanonicalJson(value) != text) return std::nullopt;
  return value;
}

std::optional<Finding> ReadSeal(std::string_view bytes, ToolAuditReport* report) {
  if (bytes.empty() || bytes.back() != '\n') {
    return Finding{"seal_invalid", "the seal is not one line ending in a newline"};
  }
  std::optional<json> value = ParseCanonical(bytes.substr(0, bytes.size() - 1));
  if (!value) return Finding{"seal_invalid", "the seal is not canonical JSON"};
  Result<ToolCallSeal> seal = ParseToolCallSeal(*value);
  if (!seal.ok()) return Finding{"seal_invalid", seal.status().message()};
  report->seal = *seal;
  return std::nullopt;
}

std::optional<Finding> ReadRecords(std::string_view journal, ToolAuditReport* report) {
  size_t line_no = 0;
  while (!journal.empty()) {
    ++line_no;
    const size_t end = journal.find('\n');
    if (end == std::string_view::npos) {
      return Finding{"record_invalid",
                     "line " + std::to_string(line_no) + " is partial (no final newline)"};
    }
    const std::string_view line = journal.substr(0, end);
    journal.remove_prefix(end + 1);
    std::optional<json> value = ParseCanonical(line);
    if (!value) {
      return Finding{"record_invalid",
                     "line " + std::to_string(line_no) + " is not canonical JSON"};
    }
    Result<ToolCallRecord> record = ParseToolCallRecord(*value);
    if (!record.ok()) {
      return Finding{"record_invalid",
                     "line " + std::to_string(line_no) + ": " + record.status().message()};
    }
    report->result_bytes += record->result_bytes;
    report->records.push_back(std::move(record).value());
  }
  return std::nullopt;
}

std::optional<Finding> CheckOrdinals(const std::vector<ToolCallRecord>& records) {
  for (size_t i = 0; i < records.size(); ++i) {
    const int64_t want = static_cast<int64_t>(i) + 1;
    if (records[i].ordinal != want) {
      return Finding{"ordinal_sequence", "line " + std::to_string(want) + " has ordinal " +
                                             std::to_string(records[i].ordinal) + ", expected " +
                                             std::to_string(want)};
    }
  }
  return std::nullopt;
}

std::optional<Finding> CheckBinding(std::string_view journal, const ToolCallSeal& seal,
                                    const ToolAuditReport& report) {
  if (journal.size() > seal.journal_bytes &&
      Sha256Ref(journal.substr(0, seal.journal_bytes)) == seal.journal_sha256) {
    return Finding{"records_after_seal", "the seal covers " + std::to_string(seal.record_count) +
                                             " of " + std::to_string(report.records.size()) +
                                             " records (" + std::to_string(seal.journal_bytes) +
                                             " of " + std::to_string(journal.size()) + " bytes)"};
  }
  if (journal.size() != seal.journal_bytes || Sha256Ref(journal) != seal.journal_sha256) {
    return Finding{"hash_mismatch", "the journal's " + std::to_string(journal.size()) +
                                        " bytes do not hash to the seal's journal_sha256"};
  }
  const int64_t count = static_cast<int64_t>(report.records.size());
  std::optional<int64_t> last;  // the last ordinal: none for an empty journal
  if (count > 0) last = count;
  if (seal.record_count != count || seal.last_ordinal != last) {
    return Finding{"count_mismatch", "the seal counts " + std::to_string(seal.record_count) +
                                         " records, the journal has " + std::to_string(count)};
  }
  if (seal.result_bytes != report.result_bytes) {
    return Finding{"result_bytes_mismatch", "the seal claims " + std::to_string(seal.result_bytes) +
                                                " result bytes, the records sum to " +
                                                std::to_string(report.result_bytes)};
  }
  return std::nullopt;
}

// The settlement's count is the governor's tally of every call Pi started; each of them ends in a
// journal record before the seal, so the two must agree.
std::optional<Finding> CheckSettlement(const ToolAuditInput& input, const ToolCallSeal& seal) {
  if (!input.settled_tool_calls || *input.settled_tool_calls == seal.record_count) {
    return std::nullopt;
  }
  return Finding{"settlement_mismatch", "the settlement frame counts " +
                                            std::to_string(*input.settled_tool_calls) +
                                            " tool calls, the sealed journal holds " +
                                            std::to_string(seal.record_count) + " records"};
}

// Which call took the aggregate over the limit, and how many finished after it (calls of one
// assistant message run concurrently, so some may have started before the crossing).
Finding ResultBytesCrossed(const ToolAuditReport& report) {
  uint64_t sum = 0;
  size_t crossing = 0;
  while (crossing < report.records.size()) {
    sum += report.records[crossing].result_bytes;
    if (sum > kMaxToolResultBytes) break;
    ++crossing;
  }
  const size_t after = report.records.size() - crossing - 1;
  return Finding{
      "result_bytes_cap_exceeded",
      "tool results total " + std::to_string(report.result_bytes) + " bytes, over the limit of " +
          std::to_string(kMaxToolResultBytes) + " bytes per child; call " +
          std::to_string(crossing + 1) + " of " + std::to_string(report.records.size()) +
          " crossed it" +
          (after == 0 ? " and was the last, so no later call was refused"
                      : " and " + std::to_string(after) + " already running finished after it"),
      /*limit=*/true};
}

std::optional<Finding> CheckPolicy(const ToolAuditReport& report, const ToolAuditInput& input) {
  if (static_cast<int64_t>(report.records.size()) > input.max_tool_calls) {
    return Finding{"call_cap_exceeded", std::to_string(report.records.size()) +
                                            " tool calls exceed the limit of " +
                                            std::to_string(input.max_tool_calls)};
  }
  const std::vector<std::string>& allowed = input.allowed_tools;
  for (const ToolCallRecord& record : report.records) {
    const bool listed =
        std::find(allowed.begin(), allowed.end(), record.tool_name) != allowed.end();
    if (record.status == "ok" && !listed) {
      return Finding{"tool_not_allowed", "call " + std::to_string(record.ordinal) +
                                             " executed tool \"" + record.tool_name +
                                             "\", which this workflow does not allow"};
    }
    const std::optional<std::string>& url = record.provenance.url;
    if (url && input.declared_urls &&
        std::find(input.declared_urls->begin(), input.declared_urls->end(), *url) ==
            input.declared_urls->end()) {
      return Finding{"source_not_declared", "call " + std::to_string(record.ordinal) +
                                                " records a fetch of " + TruncateUtf8(*url, 200) +
                                                ", which is not a declared source of this run"};
    }
  }
  // Last: a log that is otherwise sound and only went over the byte limit is a limit crossing.
  if (report.result_bytes > kMaxToolResultBytes) return ResultBytesCrossed(report);
  return std::nullopt;
}

std::optional<Finding> Check(const ToolAuditInput& input, ToolAuditReport* report) {
  if (!input.journal) return Finding{"journal_missing", "the tool-call journal does not exist"};
  if (!input.seal) return Finding{"seal_missing", "the tool-call seal does not exist"};
  if (auto f = ReadSeal(*input.seal, report)) return f;
  if (report->seal->status != "complete") {
    return Finding{"seal_incomplete", "the seal says the child failed (" +
                                          report->seal->failure_code.value_or("") + ")"};
  }
  if (auto f = ReadRecords(*input.journal, report)) return f;
  if (auto f = CheckOrdinals(report->records)) return f;
  if (auto f = CheckBinding(*input.journal, *report->seal, *report)) return f;
  if (auto f = CheckSettlement(input, *report->seal)) return f;
  return CheckPolicy(*report, input);
}

}  // namespace

ToolAuditReport VerifyToolAudit(const ToolAuditInput& input) {
  ToolAuditReport report;
  if (std::optional<Finding> finding = Check(input, &report)) {
    report.reason = finding->reason;
    const std::string detail = TruncateUtf8(finding->detail, kMaxFrameMessageBytes);
    report.status =
        finding->limit
            ? Status::Error(std::string(kChildRuntimeLimitExceeded),
                            "the candidate's tool results passed their limit: " + detail)
            : Status::Error(std::string(kToolAuditInvalid), "tool-call audit log invalid (reason " +
                                                                finding->reason + "): " + detail);
  }
  return report;
}

std::string EncodeSeal(const ToolCallSeal& seal) { return CanonicalJson(ToJson(seal)) + "\n"; }

}  // namespace pi_fusion::protocol
