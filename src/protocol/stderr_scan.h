// Splits a child's captured stderr into protocol frames and diagnostic lines.
//
// A line is a frame when it starts with kFramePrefix; its body must be a JSON object written in
// canonical form (re-encoding it gives the same bytes) with a known schema_version. Every other
// line is a diagnostic from Pi. Pure code; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pi_fusion/status.h"

namespace pi_fusion::protocol {

struct ScannedFrame {
  std::string line;     // the whole line as written: prefix, JSON, "\n"
  std::string schema;   // its schema_version
  nlohmann::json body;  // the parsed JSON object
};

struct StderrScan {
  std::vector<ScannedFrame> frames;      // in stderr order
  std::vector<std::string> diagnostics;  // every non-frame line, without its "\n"
  // The diagnostics Pi writes when an extension handler throws: "Extension error (<path>): …".
  std::vector<std::string> extension_errors;
  // The first malformed frame, if any (child_event_invalid): not canonical JSON, no or an unknown
  // schema, or cut off (a prefixed last line without its "\n"). Malformed frames are not in
  // `frames`; scanning goes on so the well-formed ones remain evidence.
  Status error;
};

StderrScan ScanStderr(std::string_view stderr_bytes);

// Whether a child has begun to answer: a byte on stdout, or a whole progress or metadata frame
// line on stderr. The child writes its first progress frame at its model's first stream event or
// its first tool start (docs/protocol.md, "Progress"), before any metadata frame or answer text;
// the run records when this first held as the attempt's first output. Other frames (a runtime
// guard's refusal) and Pi's diagnostics are not output.
bool HoldsFirstOutput(std::string_view stdout_bytes, std::string_view stderr_bytes);

// The running tool calls the last whole, well-formed progress frame in `stderr_bytes` reports;
// nullopt when it holds none. For the live views only: the frames are verified once the child
// has ended.
std::optional<int64_t> LastToolsRunning(std::string_view stderr_bytes);

// The well-formed frames of `stderr_bytes`, one JSON object per line: a stage attempt's
// `.events.jsonl`.
std::string FramesJsonl(std::string_view stderr_bytes);

}  // namespace pi_fusion::protocol
