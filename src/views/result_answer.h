// What bg_result answers the agent for one Fusion run: its text and details (what the person sees
// of that answer is built from them by tool_result_view.h). Built from the run directory on disk
// (so a completed run stays retrievable after Pi restarts). Completed runs are re-verified byte for
// byte before any answer is returned; running runs answer at once; failed and cancelled runs
// return their bounded failure view. Thread-safe; reads files only (plus the once-only usage
// claim, which writes one file the first time).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/file_system.h"
#include "pi_fusion/status.h"
#include "tasks/task_registry.h"

namespace pi_fusion::views {

// bg_result's inline delivery limit (CONTRACTS.md, bg_result): a merged answer longer than this is
// refused inline, never truncated. A limit of its own, not the candidate output cap it equals in
// value (core/limits.h kCandidateOutputMaxBytes): it counts raw bytes of the merged answer, which
// may be up to kMergerOutputMaxBytes JSON-rendered bytes. The failure view's cap is
// store::kFailureViewMaxBytes.
inline constexpr size_t kInlineAnswerLimit = 49152;
inline constexpr char kResultViewSchema[] = "pi-background-tasks.fusion-result-view.v1";

struct ResultAnswer {
  std::string text;
  // fusion-result-view.v1. A completed run's `answer` is {present, path, byte_length, sha256}
  // and, delivered inline, `text_offset`: the byte in `text` where the answer starts.
  nlohmann::json details;
  // Pi Usage to attach to the tool result: set only on the first successful retrieval.
  std::optional<nlohmann::json> attach_usage;
};

enum class Delivery { kInline, kArtifact };

// `task` is the live task when this session knows it. Errors carry `artifact_error` (the run
// failed verification), `invalid_arguments` (inline answer over the limit; nothing truncated).
// `clock` stamps the usage claim (`claimed_at`) the first retrieval writes.
Result<ResultAnswer> BuildResultAnswer(FileSystem& fs, const Clock& clock,
                                       const tasks::TaskInfo& task, Delivery delivery);

// What bg_result says of a running run that another live Pi owns (task.owner_pid set): that Pi
// alone is notified when it ends; how to read the answer once it has.
std::string OwnedElsewhereText(const tasks::TaskInfo& task);

}  // namespace pi_fusion::views
