// ProgressBeat: the child's signs of life for the parent's stall watchdog.
//
// A model that thinks for minutes streams deltas (or its provider's keep-alive events) all the
// while, but writes nothing on the child's pipes until its message ends. The binding calls Beat()
// for every such event (message_update, provider_stream_event, after_provider_response) and for
// tool activity (tool_execution_start, tool_execution_update, tool_execution_end); Beat writes
// one pi-background-tasks.fusion-child-progress.v1 frame on stderr when kProgressFrameIntervalMs
// has passed since the last one (the first at once), so a stream of thousands of deltas costs a
// line a second. A frame also carries how many tool calls are running, and a change of that count
// is written at once: a fetch that waits a minute on a slow page shows as a call in progress from
// its start, not only when it ends. The parent counts the frame as progress like any other byte
// (docs/protocol.md, "Progress"). Nothing is written after the settlement: the parent refuses any
// frame after it.
//
// Owned by the binding's per-environment state beside the governor; it decides nothing else.
// Thread-safety: none; Pi calls extension handlers on Node's JS thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "child/core/child_env.h"
#include "core/clock.h"

namespace pi_fusion::child {

class ProgressBeat {
 public:
  // `env` is not owned and must outlive the beat.
  explicit ProgressBeat(ChildEnv* env) : env_(env) {}

  // Sources of a frame.
  static constexpr std::string_view kModelStream = "model_stream";
  static constexpr std::string_view kTool = "tool";

  // One event of `source` (kModelStream or kTool), with `tools_running` tool calls started and
  // not finished. `settled`: the governor wrote its settlement; then nothing is written. A frame
  // that cannot be written is dropped (it costs a sign of life; the governor's own frames report
  // a broken stderr), and its count is offered again by the next event.
  void Beat(std::string_view source, bool settled, int64_t tools_running);

  // Frames written so far.
  int64_t frames() const { return frames_; }

 private:
  ChildEnv* const env_;
  std::optional<Clock::TimePoint> last_;
  int64_t written_running_ = 0;  // tools_running of the last frame written
  int64_t frames_ = 0;
};

}  // namespace pi_fusion::child
