#include <poll.h>

#include <cerrno>
#include <system_error>

#include "core/error_codes.h"
#include "process/cancel_relay.h"

namespace pi_fusion::process {

Result<std::unique_ptr<CancelRelay>> CancelRelay::Start(const CancelToken& source,
                                                        std::vector<CancelToken> targets) {
  std::unique_ptr<CancelRelay> relay(new CancelRelay());
  if (source.wait_fd() < 0) return relay;
  Result<CancelToken> stop = CancelToken::Create();
  if (!stop.ok()) return stop.status();
  relay->stop_ = *stop;
  try {
    relay->thread_ = std::thread([source, stop = *stop, targets = std::move(targets)] {
      pollfd fds[2] = {{source.wait_fd(), POLLIN, 0}, {stop.wait_fd(), POLLIN, 0}};
      while (!source.IsCancelled() && !stop.IsCancelled()) {
        if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
      }
      if (source.IsCancelled()) {
        for (const CancelToken& t : targets) t.Cancel();
      }
    });
  } catch (const std::system_error& e) {
    return Status::Error(kOrchestrationFailed, std::string("cancel relay thread: ") + e.what());
  }
  return relay;
}

CancelRelay::~CancelRelay() {
  stop_.Cancel();
  if (thread_.joinable()) thread_.join();
}

}  // namespace pi_fusion::process
