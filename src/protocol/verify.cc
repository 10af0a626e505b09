#include "protocol/verify.h"

#include "core/utf8.h"
#include "pi_fusion/sha256.h"
#include "protocol/constants.h"
#include "protocol/record_rules.h"
#include "protocol/stderr_scan.h"
#include "protocol/usage.h"

namespace pi_fusion::protocol {
namespace {

// How many of Pi's last diagnostic lines an exit failure quotes.
constexpr size_t kQuotedDiagnostics = 3;

Status EventInvalid(const std::string& message) {
  return Status::Error(std::string(kChildEventInvalid), message);
}

// The typed frames of one stderr, in order, with the metadata lines kept for hashing.
struct FrameStream {
  std::vector<std::string> metadata_lines;
  std::vector<RuntimeGuardFrame> guards;
  std::vector<SettlementFrame> settlements;
  bool frame_after_settlement = false;
  Status error;  // the first malformed frame
};

void Note(Status* first, const Status& s) {
  if (first->ok() && !s.ok()) *first = s;
}

FrameStream ReadFrames(const StderrScan& scan, ChildReport* report) {
  FrameStream stream;
  Note(&stream.error, scan.error);
  for (const ScannedFrame& frame : scan.frames) {
    if (!stream.settlements.empty()) stream.frame_after_settlement = true;
    if (frame.schema == kMetadataSchema) {
      Result<MetadataRecord> record = ParseMetadataRecord(frame.body);
      Note(&stream.error, record.ok() ? Status() : record.status());
      if (record.ok()) report->records.push_back(*record);
      stream.metadata_lines.push_back(frame.line);
    } else if (frame.schema == kRuntimeGuardSchema) {
      Result<RuntimeGuardFrame> guard = ParseRuntimeGuard(frame.body);
      Note(&stream.error, guard.ok() ? Status() : guard.status());
      if (guard.ok()) stream.guards.push_back(*guard);
    } else if (frame.schema == kToolArgumentsSchema) {
      // Display data for the person; the journal's hash decides whether it is ever shown.
      Result<ToolArgumentsFrame> arguments = ParseToolArguments(frame.body);
      Note(&stream.error, arguments.ok() ? Status() : arguments.status());
    } else if (frame.schema == kProgressSchema) {
      // A sign of life for the stall watchdog; bound by nothing, it proves nothing else.
      Result<ProgressFrame> progress = ParseProgress(frame.body);
      Note(&stream.error, progress.ok() ? Status() : progress.status());
    } else {
      Result<SettlementFrame> settlement = ParseSettlement(frame.body);
      Note(&stream.error, settlement.ok() ? Status() : settlement.status());
      if (settlement.ok()) stream.settlements.push_back(*settlement);
    }
  }
  return stream;
}

std::string DescribeExit(const ChildExit& exit) {
  if (exit.exit_code) return "exit code " + std::to_string(*exit.exit_code);
  if (exit.term_signal) return "signal " + std::to_string(*exit.term_signal);
  return "an unknown exit status (not reaped)";
}

Status ExitFailure(const ChildExit& exit, const ChildReport& report) {
  std::string message = "child ended with " + DescribeExit(exit);
  const auto& lines = report.diagnostics;
  const size_t first = lines.size() > kQuotedDiagnostics ? lines.size() - kQuotedDiagnostics : 0;
  std::string quoted;
  for (size_t i = first; i < lines.size(); ++i) {
    if (!lines[i].empty()) quoted += (quoted.empty() ? "" : " | ") + lines[i];
  }
  if (!quoted.empty()) message += ": " + TruncateUtf8(quoted, kMaxFrameMessageBytes);
  return Status::Error(std::string(kChildExitFailed), message);
}

Status GuardFailure(const RuntimeGuardFrame& guard) {
  return Status::Error(guard.code, "child runtime guard refused " + guard.hook + " (request " +
                                       std::to_string(guard.provider_request_ordinal) +
                                       ", tool call " + std::to_string(guard.tool_call_ordinal) +
                                       ") on " + guard.route.provider + "/" + guard.route.model +
                                       ": " + guard.message);
}

// The failures that come before any record is judged, most specific first.
Status StreamFailure(const FrameStream& stream, const StderrScan& scan, const VerifyRequest& req,
                     const ChildReport& report) {
  if (!stream.error.ok()) return stream.error;
  if (stream.guards.size() > 1) return EventInvalid("more than one runtime-guard frame");
  if (stream.guards.size() == 1) return GuardFailure(stream.guards.front());
  if (stream.settlements.size() > 1) return EventInvalid("more than one settlement frame");
  if (stream.frame_after_settlement) {
    return EventInvalid("a frame follows the settlement (settled before the child was idle)");
  }
  if (stream.settlements.size() == 1 && stream.settlements.front().failure_code) {
    const SettlementFrame& s = stream.settlements.front();
    return Status::Error(*s.failure_code, "the child settled as failed (" + *s.failure_code + ")");
  }
  const bool clean_exit = req.exit.exit_code && *req.exit.exit_code == 0;
  if (!clean_exit) return ExitFailure(req.exit, report);
  if (!scan.extension_errors.empty()) {
    return EventInvalid("extension diagnostic on stderr: " +
                        TruncateUtf8(scan.extension_errors.front(), kMaxFrameMessageBytes));
  }
  if (stream.settlements.empty()) return EventInvalid("the child wrote no settlement frame");
  return Status::Ok();
}

// The settlement must bind exactly the metadata stream that was read.
Status CheckBinding(const SettlementFrame& s, const FrameStream& stream,
                    const ChildReport& report) {
  const int64_t count = static_cast<int64_t>(stream.metadata_lines.size());
  if (s.metadata_count != count) {
    return EventInvalid("settlement counts " + std::to_string(s.metadata_count) +
                        " metadata frames, stderr has " + std::to_string(count));
  }
  if (s.metadata_sha256 != report.metadata_sha256) {
    return EventInvalid("settlement metadata hash does not match the metadata frames");
  }
  if (count == 0) {
    if (s.final_ordinal) return EventInvalid("settlement names a final record that is absent");
    return Status::Ok();
  }
  if (s.final_ordinal != count) return EventInvalid("settlement final ordinal is not the last");
  if (s.final_record_sha256 != Sha256Ref(stream.metadata_lines.back())) {
    return EventInvalid("settlement final record hash does not match the last metadata frame");
  }
  return Status::Ok();
}

}  // namespace

ChildReport VerifyChildRun(const VerifyRequest& req) {
  ChildReport report;
  const StderrScan scan = ScanStderr(req.stderr_bytes);
  report.diagnostics = scan.diagnostics;
  const FrameStream stream = ReadFrames(scan, &report);

  std::vector<nlohmann::json> usages;
  std::string joined;
  for (const MetadataRecord& record : report.records) {
    usages.push_back(record.usage);
    if (record.cache) report.cache_observations.push_back(*record.cache);
  }
  for (const std::string& line : stream.metadata_lines) joined += line;
  report.usage = SumUsage(usages);
  report.metadata_sha256 = Sha256Ref(joined);
  if (!stream.guards.empty()) report.guard = stream.guards.front();
  if (!stream.settlements.empty()) report.settlement = stream.settlements.front();

  report.status = StreamFailure(stream, scan, req, report);
  if (!report.ok()) return report;
  const SettlementFrame& settlement = *report.settlement;
  report.status = CheckBinding(settlement, stream, report);
  if (!report.ok()) return report;

  RecordCheck check = CheckRecords(report.records, settlement, req);
  report.status = check.status;
  if (!report.ok()) return report;
  report.answer = std::move(check.answer);
  report.answer_json_bytes = check.answer_json_bytes;
  report.retry_marker_ordinals = settlement.retry_marker_ordinals;
  report.oversized = check.oversized;
  return report;
}

}  // namespace pi_fusion::protocol
