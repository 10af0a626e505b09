#include "child/core/progress_beat.h"

#include <chrono>
#include <string>

#include "protocol/constants.h"
#include "protocol/frames.h"

namespace pi_fusion::child {

void ProgressBeat::Beat(std::string_view source, bool settled, int64_t tools_running) {
  if (settled) return;
  const Clock::TimePoint now = env_->clock().Now();
  const bool due =
      !last_ || now - *last_ >= std::chrono::milliseconds(protocol::kProgressFrameIntervalMs);
  if (!due && tools_running == written_running_) return;
  last_ = now;
  const protocol::ProgressFrame frame{std::string(source), tools_running};
  if (!env_->WriteStderrLine(protocol::EncodeFrameLine(protocol::ToJson(frame))).ok()) return;
  ++frames_;
  written_running_ = tools_running;
}

}  // namespace pi_fusion::child
