#include "child/core/progress_beat.h"

#include <chrono>
#include <string>

#include "protocol/constants.h"
#include "protocol/frames.h"

namespace pi_fusion::child {

void ProgressBeat::Beat(std::string_view source, bool settled) {
  if (settled) return;
  const Clock::TimePoint now = env_->clock().Now();
  if (last_ && now - *last_ < std::chrono::milliseconds(protocol::kProgressFrameIntervalMs)) {
    return;
  }
  last_ = now;
  const protocol::ProgressFrame frame{std::string(source)};
  if (env_->WriteStderrLine(protocol::EncodeFrameLine(protocol::ToJson(frame))).ok()) ++frames_;
}

}  // namespace pi_fusion::child
