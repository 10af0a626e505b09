// What a candidate looked at: the tool calls of one candidate attempt, as the expanded view of a
// finished run lists them (issue "spend and trust, visible", item 5).
//
// The audit journal (`<prefix>.tool-calls.jsonl`) says which tool ran, whether it succeeded or
// why it was refused, and how many bytes its result had, but keeps only a hash of the arguments.
// The arguments come from the attempt's event log (`<prefix>.events.jsonl`): one
// `fusion-tool-call-arguments.v1` frame per journal record (docs/protocol.md). A call's path,
// pattern or URL is shown only when the canonical JSON of those arguments hashes to the
// journal's `arguments_sha256`; otherwise the row says the arguments are not shown.
//
// Both files are read at render time through VerifyArtifact, so only bytes that still match the
// refs the manifest bound are used ("every artifact hashed and verified"). Everything read is
// data: tool names and arguments are cut, their control characters neutralized, and nothing is
// ever opened as a path. Pure functions, except ReadAttemptToolCalls (the FileSystem seam).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_system.h"
#include "store/attempt_files.h"
#include "store/manifest.h"

namespace pi_fusion::run {

// A shown path, pattern or URL is cut to this many bytes (then "…").
inline constexpr size_t kShownTargetMaxBytes = 120;
// At most this many calls are listed per candidate; the rest are counted.
inline constexpr size_t kShownCallsMax = 50;

struct ShownToolCall {
  std::string tool;    // as the model named it (neutralized, cut)
  std::string target;  // "src/a.cc", "\"TODO\" in src", a URL; "" when not shown
  bool arguments_shown = false;
  std::string outcome;  // ok | refused | failed
  std::string reason;   // the journal's error_code ("" when none)
  uint64_t result_bytes = 0;
};

// The calls of one attempt, in journal order, from the journal's and the event log's bytes.
// Lines that are not records or frames are skipped.
std::vector<ShownToolCall> ShownToolCalls(std::string_view journal, std::string_view events);

// "read src/a.cc · 1,234 bytes", "read ../x · refused: path_outside_project".
std::string ShownCallText(const ShownToolCall& call);

// The view of one attempt's calls: {summary, calls: [{state: done|failed, text}], more?}, or
// null when the manifest binds no journal for `attempt` (a workflow without tools) or the
// journal no longer matches its ref.
nlohmann::json ReadAttemptToolCalls(FileSystem& fs, const std::string& run_dir,
                                    const store::Manifest& manifest,
                                    const store::AttemptKey& attempt);

}  // namespace pi_fusion::run
