#include "host/kill_waits.h"

#include <utility>
#include <vector>

namespace pi_fusion::host {

uint64_t KillWaits::Add(std::string run_id, Answer answer) {
  const uint64_t ticket = ++last_ticket_;
  waits_.emplace(ticket, Wait{std::move(run_id), std::move(answer)});
  return ticket;
}

void KillWaits::RunEnded(const std::string& run_id, const tasks::TaskRegistry& registry) {
  // Taken out before any answer runs: an answer may add or expire waits of its own.
  std::vector<Wait> ended;
  for (auto it = waits_.begin(); it != waits_.end();) {
    if (it->second.run_id == run_id) {
      ended.push_back(std::move(it->second));
      it = waits_.erase(it);
    } else {
      ++it;
    }
  }
  for (Wait& wait : ended) Settle(std::move(wait), registry);
}

void KillWaits::Expire(uint64_t ticket, const tasks::TaskRegistry& registry) {
  auto it = waits_.find(ticket);
  if (it == waits_.end()) return;  // answered by its run's end already
  Wait wait = std::move(it->second);
  waits_.erase(it);
  Settle(std::move(wait), registry);
}

void KillWaits::Settle(Wait wait, const tasks::TaskRegistry& registry) {
  wait.answer(views::KillAnswerFor(wait.run_id, registry.Resolve(wait.run_id)));
}

}  // namespace pi_fusion::host
