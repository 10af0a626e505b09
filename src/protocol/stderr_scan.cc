#include "protocol/stderr_scan.h"

#include "pi_fusion/canonical_json.h"
#include "protocol/constants.h"
#include "protocol/frames.h"

namespace pi_fusion::protocol {
namespace {

constexpr std::string_view kExtensionErrorPrefix = "Extension error (";

Status Invalid(size_t line_number, const std::string& message) {
  return Status::Error(std::string(kChildEventInvalid),
                       "stderr line " + std::to_string(line_number) + ": " + message);
}

bool KnownSchema(std::string_view schema) {
  return schema == kMetadataSchema || schema == kSettlementSchema ||
         schema == kRuntimeGuardSchema || schema == kToolArgumentsSchema ||
         schema == kProgressSchema;
}

Result<ScannedFrame> ParseFrame(std::string_view line, size_t line_number) {
  std::string_view body = line.substr(kFramePrefix.size());
  body.remove_suffix(1);  // "\n"
  nlohmann::json value = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded() || !value.is_object()) {
    return Invalid(line_number, "frame is not a JSON object");
  }
  if (CanonicalJson(value) != body) return Invalid(line_number, "frame is not canonical JSON");
  auto schema = value.find("schema_version");
  if (schema == value.end() || !schema->is_string()) {
    return Invalid(line_number, "frame has no schema_version");
  }
  if (!KnownSchema(schema->get_ref<const std::string&>())) {
    return Invalid(line_number, "unknown frame schema " + schema->dump());
  }
  return ScannedFrame{std::string(line), schema->get<std::string>(), std::move(value)};
}

}  // namespace

StderrScan ScanStderr(std::string_view bytes) {
  StderrScan scan;
  size_t line_number = 0;
  while (!bytes.empty()) {
    ++line_number;
    const size_t newline = bytes.find('\n');
    const bool complete = newline != std::string_view::npos;
    std::string_view line = complete ? bytes.substr(0, newline + 1) : bytes;
    bytes.remove_prefix(line.size());
    if (line.substr(0, kFramePrefix.size()) == kFramePrefix) {
      Result<ScannedFrame> frame =
          complete
              ? ParseFrame(line, line_number)
              : Result<ScannedFrame>(Invalid(line_number, "frame is cut off (no end of line)"));
      if (frame.ok()) {
        scan.frames.push_back(std::move(frame).value());
      } else if (scan.error.ok()) {
        scan.error = frame.status();
      }
      continue;
    }
    std::string text(complete ? line.substr(0, line.size() - 1) : line);
    if (text.substr(0, kExtensionErrorPrefix.size()) == kExtensionErrorPrefix) {
      scan.extension_errors.push_back(text);
    }
    scan.diagnostics.push_back(std::move(text));
  }
  return scan;
}

bool HoldsFirstOutput(std::string_view stdout_bytes, std::string_view stderr_bytes) {
  if (!stdout_bytes.empty()) return true;
  // A frame line is known by its quoted schema id: frames carry the model's text only as a
  // digest, so nothing the model wrote can fake one.
  const std::string progress = "\"" + std::string(kProgressSchema) + "\"";
  const std::string metadata = "\"" + std::string(kMetadataSchema) + "\"";
  size_t start = 0;
  for (size_t end = stderr_bytes.find('\n'); end != std::string_view::npos;
       start = end + 1, end = stderr_bytes.find('\n', start)) {
    const std::string_view line = stderr_bytes.substr(start, end - start);
    if (line.substr(0, kFramePrefix.size()) != kFramePrefix) continue;
    if (line.find(progress) != std::string_view::npos ||
        line.find(metadata) != std::string_view::npos) {
      return true;
    }
  }
  return false;
}

std::optional<int64_t> LastToolsRunning(std::string_view stderr_bytes) {
  const std::string progress = "\"" + std::string(kProgressSchema) + "\"";
  // From the last whole line back: the newest frame is the one that counts.
  size_t stop = stderr_bytes.rfind('\n');
  stop = stop == std::string_view::npos ? 0 : stop + 1;
  while (stop > 0) {
    const size_t previous = stop >= 2 ? stderr_bytes.rfind('\n', stop - 2) : std::string_view::npos;
    const size_t start = previous == std::string_view::npos ? 0 : previous + 1;
    const std::string_view line = stderr_bytes.substr(start, stop - start);
    stop = start;
    if (line.substr(0, kFramePrefix.size()) != kFramePrefix ||
        line.find(progress) == std::string_view::npos) {
      continue;
    }
    Result<ScannedFrame> frame = ParseFrame(line, 0);
    if (!frame.ok()) continue;
    if (Result<ProgressFrame> parsed = ParseProgress(frame->body); parsed.ok()) {
      return parsed->tools_running;
    }
  }
  return std::nullopt;
}

std::string FramesJsonl(std::string_view stderr_bytes) {
  std::string out;
  for (const ScannedFrame& frame : ScanStderr(stderr_bytes).frames) out += frame.body.dump() + "\n";
  return out;
}

}  // namespace pi_fusion::protocol
