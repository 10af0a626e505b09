// The bg_kill calls waiting for the runs they cancelled to settle. A wait ends when its run's
// terminal event is delivered (the lifecycle records the task's terminal state and text before it
// publishes that event, so the registry then says how the run ended), or when kKillWaitMs have
// passed, whichever comes first: never by polling the registry. Either way it is answered once,
// with KillAnswerFor and the registry's state at that moment.
//
// One thread only (the host's JS thread: the terminal events and the cap's timer are both
// delivered there); not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "tasks/task_registry.h"
#include "views/lifecycle_texts.h"

namespace pi_fusion::host {

class KillWaits {
 public:
  using Answer = std::function<void(const views::KillAnswer& answer)>;

  // Waits for the run `run_id` (a full task id) to settle; `answer` is called exactly once, from
  // RunEnded or Expire. Returns the wait's ticket, for Expire.
  uint64_t Add(std::string run_id, Answer answer);
  // The terminal event of `run_id` was delivered: answers every wait for it.
  void RunEnded(const std::string& run_id, const tasks::TaskRegistry& registry);
  // The wait `ticket` has waited kKillWaitMs: answers it, if it is still waiting, with whatever
  // the registry says now ("has not settled within 30 s" for a run still running).
  void Expire(uint64_t ticket, const tasks::TaskRegistry& registry);
  // Waits not yet answered.
  size_t waiting() const { return waits_.size(); }

 private:
  struct Wait {
    std::string run_id;
    Answer answer;
  };
  static void Settle(Wait wait, const tasks::TaskRegistry& registry);

  std::map<uint64_t, Wait> waits_;
  uint64_t last_ticket_ = 0;
};

}  // namespace pi_fusion::host
